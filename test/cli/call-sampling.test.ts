/**
 * Plugin sampling during `clat call` through the real binary against server-everything's
 * `trigger-sampling-request`: without a configured model the refusal the server relays says what
 * a person can change (and keeps the -32000 code); on a terminal (tmux), the wait on the model
 * after the person allowed the request is one line, gone once the call ends.
 */
import { describe, expect, it } from 'vitest';
import { type FakeChatServer, fakeModelProvider, startFakeChatServer } from './chat-server.js';
import { CLAT_BIN, EVERYTHING_SERVER, useCliSandbox } from './support.js';
import { hasTmux, TmuxSession } from './tmux.js';

let tmux: TmuxSession | undefined;
let chat: FakeChatServer | undefined;

const sandbox = useCliSandbox(
  async () => {
    await sandbox.writeMcp({ ev: sandbox.node(EVERYTHING_SERVER, 'stdio') });
  },
  {
    teardown: async () => {
      tmux?.kill();
      tmux = undefined;
      await chat?.close();
      chat = undefined;
    },
  },
);

const WAIT_LINE = 'asking the model for mcp:ev (Ctrl-C cancels)';

describe('clat call: plugin sampling', () => {
  it('says no model is configured and where to configure one', async () => {
    const result = await sandbox.run([
      'call',
      'mcp_ev_trigger_sampling_request',
      'prompt=hi',
      '--trust',
    ]);
    expect(result.stdout).toBe(
      `MCP error -32000: sampling is unavailable: no model is configured for this run; set "provider" in $CLAT_HOME/config.json\n`,
    );
    expect(result.stdout).not.toContain('run-');
  });

  it.skipIf(!hasTmux())(
    'shows one line while the model answers, and none once the call ends',
    async () => {
      // The first request is answered, the second never is (Ctrl-C ends it).
      chat = await startFakeChatServer([{ text: 'Hello from the model.' }, { hang: true }]);
      await sandbox.writeConfig({ provider: fakeModelProvider(chat.url) });
      await sandbox.run(['trust']);
      const session = new TmuxSession(`clat-sampling-${process.pid}-${Date.now()}`);
      tmux = session;
      const start = () =>
        session.start(
          [process.execPath, CLAT_BIN, 'call', 'mcp_ev_trigger_sampling_request', 'prompt=hi'],
          sandbox.project,
          { CLAT_HOME: sandbox.home, NO_COLOR: '1' },
        );
      start();
      await session.waitFor(/Allow mcp:ev:sampling\?.*\[y\/N\]/);
      expect(session.capture()).not.toContain(WAIT_LINE);
      session.line('y');
      const done = await session.waitFor('EXITED:0');
      expect(done).toContain('Hello from the model.');
      expect(done).not.toContain(WAIT_LINE);

      session.kill();
      start();
      await session.waitFor(/Allow mcp:ev:sampling\?.*\[y\/N\]/);
      session.line('y');
      await session.waitFor(WAIT_LINE);
      session.key('C-c');
      const cancelled = await session.waitFor('EXITED:130');
      expect(cancelled).not.toContain(WAIT_LINE);
      expect(cancelled).toContain('cancelled by Ctrl-C');
    },
  );
});
