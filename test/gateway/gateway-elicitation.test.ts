/**
 * Questions for a person through `clat-gateway`: a plugin's elicitation form (server-everything's
 * `trigger-elicitation-request`, thirteen fields of every shape) reaches the calling MCP client as
 * ONE form elicitation, the client's answer is checked field by field and mapped back (titled
 * choices to their values), and the gateway's own `ask_user` asks the client too. Real processes:
 * SDK v1 and v2 clients, the gateway binary, server-everything.
 */
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayWorld, gatewayStdio, gatewayWorld } from './support.js';

const TRIGGER = 'mcp_everything_trigger_elicitation_request';

let world: GatewayWorld | undefined;
const clients: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  await world?.cleanup();
  world = undefined;
});

interface Asked {
  message: string;
  requestedSchema: {
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
  };
}

type Answer = (asked: Asked) => Record<string, unknown>;

function textOf(result: object): string {
  const blocks = ((result as { content?: unknown }).content ?? []) as Array<{ text?: string }>;
  return blocks.map((block) => block.text ?? '').join('\n');
}

function transportArgs(w: GatewayWorld) {
  return gatewayStdio(w, ['--mode', 'full-access']);
}

async function v1Client(w: GatewayWorld, answer: Answer | undefined, asked: Asked[]) {
  const client = new ClientV1(
    { name: 'gateway-forms-v1', version: '0.0.0' },
    { capabilities: answer === undefined ? {} : { elicitation: {} } },
  );
  if (answer !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as unknown as Asked;
      asked.push(params);
      return answer(params) as never;
    });
  }
  await client.connect(new StdioV1(transportArgs(w)));
  clients.push(client);
  return client;
}

async function v2Client(w: GatewayWorld, answer: Answer, asked: Asked[]) {
  const client = new ClientV2(
    { name: 'gateway-forms-v2', version: '0.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: 'auto' } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as unknown as Asked;
    asked.push(params);
    return answer(params) as never;
  });
  await client.connect(new StdioV2(transportArgs(w)));
  clients.push(client);
  return client;
}

/** Fills the form as a person would: picks titled options by the title the client shows. */
const fillProfile: Answer = (asked) => {
  const hero = asked.requestedSchema.properties.titledSingleSelectEnum;
  const fish = asked.requestedSchema.properties.titledMultipleSelectEnum?.items as
    | { enum?: string[] }
    | undefined;
  return {
    action: 'accept',
    content: {
      name: 'Ada Lovelace',
      check: true,
      email: 'ada@example.org',
      integer: 7,
      titledSingleSelectEnum: (hero?.enum as string[] | undefined)?.find(
        (t) => t === 'Wonder Woman',
      ),
      titledMultipleSelectEnum: fish?.enum?.filter((t) => t === 'Salmon' || t === 'Trout'),
    },
  };
};

describe('elicitation forwarded by clat-gateway', () => {
  for (const [era, connect] of [
    ['legacy (SDK v1, a push request)', v1Client],
    ['2026-07-28 (SDK v2, an input_required round)', v2Client],
  ] as const) {
    it(`asks a plugin's whole form as one client elicitation and maps the answer back: ${era}`, async () => {
      world = await gatewayWorld();
      const asked: Asked[] = [];
      const client = await connect(world, fillProfile, asked);
      const result = await client.callTool({ name: TRIGGER, arguments: {} });
      expect(result.isError).not.toBe(true);
      // One dialog for all thirteen fields, saying which plugin asks.
      expect(asked).toHaveLength(1);
      const form = asked[0] as Asked;
      expect(form.message).toBe(
        'mcp plugin "everything" asks (through CLAT): Please provide inputs for the following fields:',
      );
      expect(Object.keys(form.requestedSchema.properties)).toHaveLength(13);
      expect(form.requestedSchema.required).toEqual(['name']);
      expect(form.requestedSchema.properties.integer).toMatchObject({
        type: 'integer',
        minimum: 1,
        maximum: 100,
        default: 42,
      });
      expect(form.requestedSchema.properties.email).toMatchObject({
        type: 'string',
        format: 'email',
      });
      expect(form.requestedSchema.properties.titledSingleSelectEnum?.enum).toEqual([
        'Superman',
        'Green Lantern',
        'Wonder Woman',
      ]);
      const text = textOf(result);
      expect(text).toContain('- Name: Ada Lovelace');
      expect(text).toContain('- Agreed to terms: true');
      expect(text).toContain('- Favorite Integer: 7');
      // The server receives its own values for the titles the person picked.
      expect(text).toContain('"titledSingleSelectEnum": "hero-3"');
      expect(text).toMatch(/"titledMultipleSelectEnum": \[\s*"fish-2",\s*"fish-3"\s*\]/);
    });
  }

  it('passes a decline through, and refuses an answer the form does not allow', async () => {
    world = await gatewayWorld();
    const asked: Asked[] = [];
    let reply: Record<string, unknown> = { action: 'decline' };
    const client = await v1Client(world, () => reply, asked);
    const declined = await client.callTool({ name: TRIGGER, arguments: {} });
    expect(textOf(declined)).toContain('User declined to provide the requested information');

    // Out of range for a 1..100 integer: refused with one coded sentence naming the field (the
    // gateway's SDK checks the answer against the form it sent; the kernel checks it again as
    // it checks typed answers), never passed on to the server and never an internal error.
    reply = { action: 'accept', content: { name: 'Ada', integer: 500 } };
    const refused = await client.callTool({ name: TRIGGER, arguments: {} });
    expect(textOf(refused)).not.toContain('Favorite Integer: 500');
    expect(textOf(refused)).toContain("the MCP client's answer to the form was refused");
    expect(textOf(refused)).toContain('integer must be <= 100');
    expect(textOf(refused)).not.toContain('elicitation failed');
    expect(asked).toHaveLength(2);
  });

  it("asks the client the gateway's own ask_user question, with its options", async () => {
    world = await gatewayWorld();
    const asked: Asked[] = [];
    const client = await v1Client(
      world,
      (form) => ({
        action: 'accept',
        content: {
          answer: (form.requestedSchema.properties.answer?.enum as string[] | undefined)?.[1],
        },
      }),
      asked,
    );
    const result = await client.callTool({
      name: 'ask_user',
      arguments: {
        question: 'Which branch?',
        options: [{ label: 'main' }, { label: 'release' }],
        allow_custom: false,
      },
    });
    expect(result.isError).not.toBe(true);
    expect(asked[0]?.message).toBe('Which branch?');
    expect(asked[0]?.requestedSchema.properties.answer).toMatchObject({
      type: 'string',
      enum: ['main', 'release'],
    });
    expect(textOf(result)).toContain('release');
  });

  it('a client without elicitation gets a clear refusal instead of a hang', async () => {
    world = await gatewayWorld();
    const client = await v1Client(world, undefined, []);
    const question = await client.callTool({
      name: 'ask_user',
      arguments: { question: 'Anyone there?' },
    });
    expect(question.isError).toBe(true);
    expect(textOf(question)).toMatch(
      /NATIVE_NO_FRONTEND|no interactive frontend|nobody can answer/i,
    );
  });
});
