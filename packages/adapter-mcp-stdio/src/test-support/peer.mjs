// A tiny line-echo peer for the transport's unit tests; argv[2] picks a behaviour.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const mode = process.argv[2] ?? 'echo';
const out = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

function serve() {
  const rl = createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    const message = JSON.parse(line);
    if (message.id === undefined) return;
    const params = message.params ?? {};
    if (message.method === 'big-id-last') {
      // As the MCP SDK serializes a response: `result` first, the id as the last member.
      out({ result: { data: 'x'.repeat(params.bytes) }, jsonrpc: '2.0', id: message.id });
      return;
    }
    let result;
    if (message.method === 'cwd') result = { cwd: process.cwd() };
    else if (message.method === 'env') result = { value: process.env[params.name] ?? null };
    else if (message.method === 'big') result = { data: 'x'.repeat(params.bytes) };
    else result = { echo: params };
    out({ jsonrpc: '2.0', id: message.id, result });
  });
  rl.on('close', () => process.exit(0));
}

switch (mode) {
  case 'echo':
    serve();
    break;
  case 'garbage':
    process.stdout.write('this is not json\n');
    process.stdout.write('{"jsonrpc":"1.0","id":1}\n');
    process.stdout.write('\n   \n');
    process.stdout.write('{"broken": \n');
    out({ jsonrpc: '2.0', method: 'notifications/ready' });
    serve();
    break;
  case 'oversize': {
    // A 5 MiB notification written in pieces, then normal service: the reader skips it.
    const piece = 'y'.repeat(256 * 1024);
    process.stdout.write('{"jsonrpc":"2.0","method":"huge","params":{"s":"');
    for (let i = 0; i < 20; i++) process.stdout.write(piece);
    process.stdout.write('"}}\n');
    serve();
    break;
  }
  case 'daemon': {
    // A setsid() daemon (new session, out of our process group) that would outlive us.
    const daemon = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)'], {
      detached: true,
      stdio: 'ignore',
    });
    daemon.unref();
    out({ jsonrpc: '2.0', method: 'notifications/daemon', params: { pid: daemon.pid } });
    serve();
    break;
  }
  case 'runaway': {
    // Bytes without a newline until killed.
    const piece = 'r'.repeat(1024 * 1024);
    const pump = () => {
      while (process.stdout.write(piece));
      process.stdout.once('drain', pump);
    };
    pump();
    break;
  }
  case 'exit':
    process.stderr.write('loading config\n');
    process.stderr.write('fatal: Authorization: Bearer sk-live-0123456789abcdefXYZ rejected\n');
    process.exitCode = 3;
    break;
  case 'ignore-term':
    process.on('SIGTERM', () => process.stderr.write('ignoring SIGTERM\n'));
    process.stdin.resume();
    process.stdin.on('end', () => {});
    setInterval(() => {}, 1000);
    out({ jsonrpc: '2.0', method: 'notifications/ready' });
    break;
  case 'grandchild': {
    const child = spawn(
      process.execPath,
      ['-e', "process.on('SIGTERM',()=>{});setInterval(()=>{},1000)"],
      { stdio: 'ignore' },
    );
    out({ jsonrpc: '2.0', method: 'notifications/grandchild', params: { pid: child.pid } });
    serve();
    break;
  }
  case 'stderr-flood': {
    const line = `${'noise '.repeat(30)}\n`;
    const block = line.repeat(1000);
    for (let i = 0; i < 40; i++) process.stderr.write(block);
    process.stderr.write('request failed: Authorization: Bearer sk-test-SECRETSECRET12345\n');
    process.stderr.write(`using ${process.env.PEER_PLAIN ?? 'none'} as the workspace\n`);
    process.stderr.write(`API_KEY=${process.env.PEER_API_KEY ?? 'none'}\n`);
    serve();
    break;
  }
  case 'stderr-lines': {
    // A partial line split over two writes, then one write of many lines, then a partial line.
    process.stderr.write('first half ');
    setTimeout(() => {
      process.stderr.write('second half\n');
      const many = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
      process.stderr.write(`${many}\nlast partial`);
      out({ jsonrpc: '2.0', method: 'notifications/ready' });
    }, 30);
    serve();
    break;
  }
  case 'close-stdout':
    process.stdout.end();
    setInterval(() => {}, 1000);
    break;
  case 'no-read':
    process.stdin.pause();
    setInterval(() => {}, 1000);
    out({ jsonrpc: '2.0', method: 'notifications/ready' });
    break;
  default:
    process.stderr.write(`unknown mode ${mode}\n`);
    process.exit(2);
}
