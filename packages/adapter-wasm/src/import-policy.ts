/**
 * The import allowlist: a component may import the clat:plugin@0.1.0 interfaces and the WASI 0.2
 * interfaces our own sandbox implements, nothing else (no sockets, no http, no other contract
 * version). Names and versions come from the component binary itself, because jco reports
 * imports without their version; checked at install/load before any guest code runs.
 * @module
 */

/** Interfaces (without version) a guest may import. */
export const ALLOWED_IMPORTS: readonly string[] = [
  'clat:plugin/types',
  'clat:plugin/host',
  'clat:plugin/sampling',
  'clat:plugin/elicitation',
  'clat:plugin/config',
  'wasi:io/error',
  'wasi:io/poll',
  'wasi:io/streams',
  'wasi:clocks/monotonic-clock',
  'wasi:clocks/wall-clock',
  'wasi:random/random',
  'wasi:random/insecure',
  'wasi:random/insecure-seed',
  'wasi:cli/environment',
  'wasi:cli/exit',
  'wasi:cli/stdin',
  'wasi:cli/stdout',
  'wasi:cli/stderr',
  'wasi:cli/terminal-input',
  'wasi:cli/terminal-output',
  'wasi:cli/terminal-stdin',
  'wasi:cli/terminal-stdout',
  'wasi:cli/terminal-stderr',
  'wasi:filesystem/types',
  'wasi:filesystem/preopens',
];

/** The one version of the WIT contract this host implements (kernel wit/plugin.wit). */
const PLUGIN_CONTRACT_VERSION = '0.1.0';

/** The interface a component must export. */
export const TOOLS_EXPORT = `clat:plugin/tools@${PLUGIN_CONTRACT_VERSION}`;

// Our WASI shim follows the 0.2 (preview 2) ABI; any 0.2.x patch release shares it.
const WASI_VERSION = /^0\.2\.\d+$/;

/** Strips a `@version` suffix: `wasi:cli/stdout@0.2.3` → `wasi:cli/stdout`. */
export function unversionedInterface(name: string): string {
  const at = name.indexOf('@');
  return at === -1 ? name : name.slice(0, at);
}

function versionAllowed(name: string): boolean {
  const at = name.indexOf('@');
  if (at === -1) return false;
  const version = name.slice(at + 1);
  if (name.startsWith('clat:plugin/')) return version === PLUGIN_CONTRACT_VERSION;
  return WASI_VERSION.test(version);
}

/**
 * The imports outside the allowlist, sorted; empty when the component may load. Names must carry
 * their version: `clat:plugin/*@0.1.0` and `wasi:*@0.2.x` only.
 */
export function disallowedImports(imports: readonly string[]): string[] {
  const allowed = new Set(ALLOWED_IMPORTS);
  return [...new Set(imports)]
    .filter((name) => !allowed.has(unversionedInterface(name)) || !versionAllowed(name))
    .sort();
}

/** Top-level import and export names of a component binary, versions included. */
export interface ComponentInterfaces {
  imports: string[];
  exports: string[];
}

const COMPONENT_PREAMBLE = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];
const SECTION_IMPORT = 10;
const SECTION_EXPORT = 11;

class Reader {
  offset: number;
  readonly bytes: Uint8Array;
  readonly end: number;
  constructor(bytes: Uint8Array, start: number, end: number) {
    this.bytes = bytes;
    this.offset = start;
    this.end = end;
  }

  byte(): number {
    if (this.offset >= this.end) throw new Error('unexpected end of section');
    return this.bytes[this.offset++] as number;
  }

  u32(): number {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
    }
    throw new Error('malformed LEB128 integer');
  }

  string(): string {
    const length = this.u32();
    if (this.offset + length > this.end) throw new Error('string runs past its section');
    const text = new TextDecoder('utf-8', { fatal: true }).decode(
      this.bytes.subarray(this.offset, this.offset + length),
    );
    this.offset += length;
    return text;
  }

  // importname'/exportname': 0x00 name | 0x01 name + version suffix (or legacy URL) | 0x02 + 2 strings.
  externName(): string {
    const form = this.byte();
    const name = this.string();
    if (form === 0x01) this.string();
    else if (form === 0x02) {
      this.string();
      this.string();
    } else if (form !== 0x00) throw new Error(`unknown name encoding 0x${form.toString(16)}`);
    return name;
  }

  externDesc(): void {
    const sort = this.byte();
    if (sort === 0x00) {
      this.byte();
      this.u32();
    } else if (sort === 0x02 || sort === 0x03) {
      if (this.byte() === 0x00 || sort === 0x02) this.u32();
    } else if (sort === 0x01 || sort === 0x04 || sort === 0x05) this.u32();
    else throw new Error(`unknown extern kind 0x${sort.toString(16)}`);
  }
}

/**
 * Reads the top-level import and export names of a component. Throws on anything that is not a
 * well-formed component header and section list.
 */
export function componentInterfaces(bytes: Uint8Array): ComponentInterfaces {
  if (
    bytes.length < COMPONENT_PREAMBLE.length ||
    COMPONENT_PREAMBLE.some((value, index) => bytes[index] !== value)
  ) {
    throw new Error('not a WebAssembly component (bad preamble)');
  }
  const imports: string[] = [];
  const exports: string[] = [];
  const top = new Reader(bytes, COMPONENT_PREAMBLE.length, bytes.length);
  while (top.offset < top.end) {
    const id = top.byte();
    const size = top.u32();
    const start = top.offset;
    if (start + size > bytes.length) throw new Error(`section ${id} runs past the end`);
    if (id === SECTION_IMPORT || id === SECTION_EXPORT) {
      const section = new Reader(bytes, start, start + size);
      const count = section.u32();
      for (let index = 0; index < count; index++) {
        const name = section.externName();
        if (id === SECTION_IMPORT) {
          imports.push(name);
          section.externDesc();
        } else {
          exports.push(name);
          // sortidx (core sorts carry a second byte), then an optional type ascription.
          if (section.byte() === 0x00) section.byte();
          section.u32();
          if (section.byte() === 0x01) section.externDesc();
        }
      }
    }
    top.offset = start + size;
  }
  return { imports, exports };
}
