/**
 * Secret redaction for diagnostics (stderr tails, status, error text). Limits secondary leakage;
 * it is not secret storage.
 * @module
 */

export const REDACTED = '[REDACTED]';

const TOKEN = String.raw`[A-Za-z0-9_\-.=/+~]`;
const SECRET_WORD = String.raw`api[_-]?key|apikey|access[_-]?token|token|secret|password|passwd|pwd|credential|private[_-]?key`;
/**
 * The words a `NAME=value` name ends in when its value is a secret: not `pwd`, which ends `PWD`,
 * the working directory.
 */
const SECRET_NAME_WORD = String.raw`api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|password|passwd|credential|private[_-]?key|key`;

const PATTERNS: readonly RegExp[] = [
  // Authorization: Bearer <token>, token ≥ 8
  new RegExp(String.raw`(\bbearer[ \t]+)${TOKEN}{8,}`, 'gi'),
  // Basic auth
  /(\bbasic[ \t]+)[A-Za-z0-9+/=]{8,}/gi,
  // OpenAI/Anthropic-style keys: sk-…, sk-ant-…, ≥ 12
  new RegExp(String.raw`()\bsk-${TOKEN}{12,}`, 'g'),
  // GitHub, Slack, Google, AWS key shapes
  /()\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,}|(?:AKIA|ASIA)[0-9A-Z]{16,})/g,
  // NAME=value / NAME: value / "NAME": "value" where NAME ends like a secret, value ≥ 8. Not
  // zod's `Unrecognized key: "<field>"` (that exact form), whose value is a field name a
  // schema error must show: `Unrecognized token: <value>` is still redacted.
  new RegExp(
    String.raw`(?!(?<=\bunrecognized )key: ")(\b[A-Za-z0-9_.-]*(?:${SECRET_NAME_WORD})["']?\s*[:=]\s*["']?)${TOKEN}{8,}`,
    'gi',
  ),
  // URL userinfo: scheme://user:pass@host
  /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]{3,}(?=@)/gi,
  // URL userinfo that is one token: scheme://ghp_xxx@host
  /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s:/@]{8,}(?=@)/gi,
  // Secret-named URL query parameters: ?api_key=…, &access_token=…, &sig=…
  new RegExp(
    String.raw`([?&;][A-Za-z0-9_.-]*(?:${SECRET_WORD}|auth|sig|signature|code|session)[A-Za-z0-9_.-]*=)[^&#\s"'<>]+`,
    'gi',
  ),
  // Secret-named command-line flags followed by their value: --api-key v, --token v, -password v
  new RegExp(
    String.raw`((?<!\S)--?[A-Za-z0-9_-]*(?:${SECRET_WORD})s?[ \t]+["']?)[^\s"']{3,}`,
    'gi',
  ),
  // Any Authorization scheme: Authorization: Token x, "authorization": "Digest x". A placeholder
  // in angle brackets (`Bearer <token>`, in advice that names a command) is no value.
  /(\bauthorization["']?\s*[:=]\s*["']?(?!(?:[A-Za-z-]+[ \t]+)?<[A-Za-z_-]+>(?:[\s"',;]|$))(?:[A-Za-z-]+[ \t]+)?)[^\s"',;]{3,}/gi,
  // GLM (Zhipu) keys: <hex id>.<secret>
  /()\b[0-9a-fA-F]{24,}\.[A-Za-z0-9]{8,}\b/g,
];

/** Replaces key-shaped values and any exact `secrets` with [REDACTED]. */
export function redactSecrets(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  for (const pattern of PATTERNS) {
    out = out.replace(pattern, (_match, prefix: string) => `${prefix}${REDACTED}`);
  }
  return out;
}

const SECRET_FLAG = new RegExp(String.raw`^--?[A-Za-z0-9_-]*(?:${SECRET_WORD})s?$`, 'i');

/** Redacts an argument vector: each argument, and the value after a secret-named flag (`--token v`). */
export function redactArgs(args: readonly string[]): string[] {
  return args.map((arg, index) =>
    index > 0 && SECRET_FLAG.test(args[index - 1] ?? '') ? REDACTED : redactSecrets(arg),
  );
}

const SECRET_NAME = new RegExp(String.raw`(?:${SECRET_NAME_WORD})s?$`, 'i');

/**
 * Whether a variable or setting name says its value is a secret (`GITHUB_TOKEN`, `ACME_API_KEY`,
 * `DB_PASSWORD`): it ends in one of the words the `NAME=value` rule above redacts after. For
 * notes that name a variable whose value would be exposed, and to keep such a variable's value
 * redacted whatever it looks like; never to decide that a value is safe to show by its name alone.
 */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** Keeps exact secret values (configured headers, API keys) and redacts them plus key shapes. */
export class Redactor {
  readonly #secrets = new Set<string>();

  add(secret: string | undefined): void {
    if (secret === undefined) return;
    const trimmed = secret.trim();
    if (trimmed.length >= 4) this.#secrets.add(trimmed);
    // A header value "Bearer xyz" also leaks as "xyz" alone.
    const token = /^(?:bearer|basic|token)\s+(.+)$/i.exec(trimmed)?.[1];
    if (token !== undefined && token.length >= 4) this.#secrets.add(token);
  }

  /** Adds every value of a header map (all header values are treated as secret). */
  addHeaders(headers: Record<string, string> | undefined): void {
    for (const value of Object.values(headers ?? {})) this.add(value);
  }

  redact(text: string): string {
    return redactSecrets(
      text,
      [...this.#secrets].sort((a, b) => b.length - a.length),
    );
  }
}

/** A bounded tail of text lines (stderr), redacted on read. */
export class LineTail {
  readonly #max: number;
  readonly #lineBytes: number;
  readonly #lines: string[] = [];
  #partial = '';

  constructor(maxLines: number, maxLineChars: number) {
    this.#max = maxLines;
    this.#lineBytes = maxLineChars;
  }

  push(chunk: string): void {
    const parts = (this.#partial + chunk).split(/\r?\n/);
    this.#partial = (parts.pop() ?? '').slice(0, this.#rawCap);
    for (const line of parts) this.#add(line);
  }

  /** Flushes a trailing partial line (at process exit). */
  end(): void {
    if (this.#partial !== '') this.#add(this.#partial);
    this.#partial = '';
  }

  /** Redacts each full line before capping it, so a cut never exposes the start of a secret. */
  lines(redactor?: Redactor): string[] {
    const lines = this.#partial === '' ? [...this.#lines] : [...this.#lines, this.#partial];
    return lines.slice(-this.#max).map((line) => {
      const clean = redactor ? redactor.redact(line) : redactSecrets(line);
      return clean.length > this.#lineBytes ? `${clean.slice(0, this.#lineBytes)}…` : clean;
    });
  }

  #add(line: string): void {
    if (line.trim() === '') return;
    this.#lines.push(line.slice(0, this.#rawCap));
    if (this.#lines.length > this.#max) this.#lines.shift();
  }

  // Raw lines keep some slack beyond the display cap so redaction sees whole tokens.
  get #rawCap(): number {
    return this.#lineBytes * 8;
  }
}
