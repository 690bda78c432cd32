import type { UserQuestionOption } from '@clat/kernel';
import { cancelledError } from '@clat/kernel';
import { invalidArguments, onlyKnown, optionalBoolean, requiredString } from '../args.js';
import { NativeToolError, NativeToolErrorCode } from '../errors.js';
import { NATIVE_LIMITS } from '../limits.js';
import { defineNativeTool } from '../native-tool.js';

export interface AskUserOutput {
  answer: string;
}

function readOptions(value: unknown): UserQuestionOption[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidArguments('ask_user', '"options" must be a list');
  if (value.length > NATIVE_LIMITS.askMaxOptions) {
    throw invalidArguments(
      'ask_user',
      `"options" has ${value.length} entries, over the limit of ${NATIVE_LIMITS.askMaxOptions}`,
    );
  }
  return value.map((item, index) => {
    const option = item as { label?: unknown; description?: unknown } | null;
    if (typeof option?.label !== 'string' || option.label === '') {
      throw invalidArguments(
        'ask_user',
        `"options[${index}].label" is required and must be a non-empty string`,
      );
    }
    if (option.description !== undefined && typeof option.description !== 'string') {
      throw invalidArguments('ask_user', `"options[${index}].description" must be a string`);
    }
    return option.description === undefined
      ? { label: option.label }
      : { label: option.label, description: option.description };
  });
}

/** Not a host tool: plugins ask through elicitation, which reaches the same UserAsker port. */
export function askUserTool() {
  return defineNativeTool({
    name: 'ask_user',
    description:
      'Ask the user one question, optionally with single-choice options, and wait for the answer. Fails when nobody can answer (headless) or the user declines.',
    effect: 'pure',
    inputSchema: {
      type: 'object',
      properties: {
        question: { type: 'string', minLength: 1 },
        options: {
          type: 'array',
          maxItems: NATIVE_LIMITS.askMaxOptions,
          items: {
            type: 'object',
            properties: {
              label: { type: 'string', minLength: 1 },
              description: { type: 'string' },
            },
            required: ['label'],
            additionalProperties: false,
          },
        },
        allow_custom: { type: 'boolean', default: true },
      },
      required: ['question'],
      additionalProperties: false,
    },
    async run(args, ctx): Promise<AskUserOutput> {
      onlyKnown('ask_user', args, ['question', 'options', 'allow_custom']);
      const question = requiredString('ask_user', args, 'question');
      const options = readOptions(args.options);
      const allowCustom = optionalBoolean('ask_user', args, 'allow_custom', true);
      const asker = ctx.run.asker;
      if (asker === undefined) {
        throw new NativeToolError(
          NativeToolErrorCode.NATIVE_NO_FRONTEND,
          'ask_user: no interactive frontend is attached (headless); decide without asking',
        );
      }
      let asked = question;
      for (let attempt = 0; ; attempt++) {
        const answer = await asker.ask(
          options.length === 0 ? { question } : { question: asked, options, allowCustom },
          ctx.signal,
        );
        if (answer.kind === 'cancelled') throw cancelledError(ctx.signal, 'ask_user');
        if (answer.kind === 'declined') {
          throw new NativeToolError(
            NativeToolErrorCode.NATIVE_USER_DECLINED,
            'ask_user: the user declined to answer',
          );
        }
        const text = answer.text.trim();
        // A label typed by hand (in any case) is that option, as the model wrote it.
        const label = options.find((option) => option.label.toLowerCase() === text.toLowerCase());
        if (label !== undefined) return { answer: label.label };
        // The frontend shows the options; the rule that an answer is one of them is the tool's
        // (a frontend may let any text through), so a typo is asked again, not sent as an answer.
        if (options.length === 0 || allowCustom) return { answer: answer.text };
        if (attempt >= NATIVE_LIMITS.askInvalidRetries) {
          throw new NativeToolError(
            NativeToolErrorCode.NATIVE_USER_DECLINED,
            `ask_user: the user answered none of the options (${NATIVE_LIMITS.askInvalidRetries + 1} answers, the last ${JSON.stringify(text)})`,
          );
        }
        asked = `${question}\n(${JSON.stringify(text)} is not one of the options: answer with one of them)`;
      }
    },
  });
}
