import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { caSignedEc, openssl, selfSignedEc } from './openssl.js';

/**
 * TESTS ONLY: syslog receivers (UDP, TCP and mutual TLS with RFC 6587 octet counting), parsers
 * of the formats, and a test PKI made with `openssl`: the server's forwarding tests and the
 * reference agent's syslog tests use them.
 */

/** A syslog receiver of the kind docs/dependencies.md#syslog tried: UDP datagrams, or RFC 6587 octet counting. */
export interface Receiver {
  port: number;
  messages: string[];
  close(): Promise<void>;
}

/** Octet-counted frames, split on bytes (not string length: the BOM and CJK are multi-byte). */
export function octetCounted(onMessage: (m: string) => void) {
  let buffer = Buffer.alloc(0);
  return (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const space = buffer.indexOf(0x20);
      if (space < 0) return;
      const length = Number(buffer.subarray(0, space).toString('ascii'));
      if (buffer.length < space + 1 + length) return;
      onMessage(buffer.subarray(space + 1, space + 1 + length).toString('utf8'));
      buffer = buffer.subarray(space + 1 + length);
    }
  };
}

export async function tcpReceiver(
  port = 0,
  tls?: { key: string; cert: string; ca: string },
): Promise<Receiver> {
  const messages: string[] = [];
  const sockets = new Set<Socket>();
  const onConnection = (socket: Socket | TLSSocket) => {
    sockets.add(socket);
    socket.on(
      'data',
      octetCounted((m) => messages.push(m)),
    );
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server: Server = tls
    ? createTlsServer({ ...tls, requestCert: true, rejectUnauthorized: true }, onConnection)
    : createTcpServer(onConnection);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    messages,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export async function udpReceiver(): Promise<Receiver> {
  const messages: string[] = [];
  const socket: UdpSocket = createSocket('udp4');
  socket.on('message', (m) => messages.push(m.toString('utf8')));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    messages,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** RFC 5424: PRI, version, timestamp, host, app, procid, msgid, structured data and message. */
export function parse5424(message: string) {
  const m = /^<(\d+)>1 (\S+) (\S+) (\S+) (\S+) (\S+) (-|\[(?:[^\]\\]|\\.)*\]) ?([\s\S]*)$/.exec(message);
  if (!m) throw new Error(`not RFC 5424: ${message.slice(0, 120)}`);
  const sd: Record<string, string> = {};
  for (const p of (m[7] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
    sd[p[1]!] = p[2]!.replace(/\\(["\\\]])/g, '$1');
  return { pri: Number(m[1]), at: m[2]!, host: m[3]!, app: m[4]!, msgid: m[6]!, sd, msg: m[8]! };
}

export function parseCef(msg: string) {
  const parts: string[] = [];
  let rest = msg;
  for (let i = 0; i < 7; i++) {
    const at = /(?<!\\)\|/.exec(rest)!.index;
    parts.push(rest.slice(0, at).replace(/\\([|\\])/g, '$1'));
    rest = rest.slice(at + 1);
  }
  const ext: Record<string, string> = {};
  for (const pair of rest.split(/ (?=\w+=)/)) {
    const eq = pair.indexOf('=');
    ext[pair.slice(0, eq)] = pair
      .slice(eq + 1)
      .replace(/\\n/g, '\n')
      .replace(/\\([=\\])/g, '$1');
  }
  return { header: parts, ext };
}

export function parseLeef(msg: string) {
  const parts = msg.split('|');
  const attrs = Object.fromEntries(
    parts
      .slice(6)
      .join('|')
      .split('\t')
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  return { header: parts.slice(0, 6), attrs };
}

export function opensslTls(dir: string) {
  selfSignedEc(dir, { key: 'ca.key', cert: 'ca.pem', cn: 'syslog-test-ca', days: 2 });
  caSignedEc(dir, {
    name: 'server',
    cn: 'localhost',
    ext: 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    days: 2,
  });
  caSignedEc(dir, { name: 'client', cn: 'ksp-client', ext: 'extendedKeyUsage=clientAuth', days: 2 });
  openssl(['pkcs8', '-topk8', '-nocrypt', '-in', 'client.key', '-out', 'client.p8'], dir);
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return {
    ca: read('ca.pem'),
    serverKey: read('server.key'),
    serverCert: read('server.pem'),
    clientCert: read('client.pem'),
    clientKey: read('client.p8'),
    otherKey: read('server.key'),
  };
}
