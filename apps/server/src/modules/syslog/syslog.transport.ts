import { createSocket } from 'node:dgram';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { SyslogProtocol } from '@ksp/contracts';
import { frameOctetCounted } from './syslog.format.js';

/** How long a connection, a write or the closing handshake may take. */
export const SYSLOG_TIMEOUT_MS = 5_000;

export interface Receiver {
  host: string;
  port: number;
  protocol: SyslogProtocol;
  ca?: string | null;
  cert?: string | null;
  key?: string | null;
}

const withTimeout = <T>(work: Promise<T>, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${what}: no answer within ${SYSLOG_TIMEOUT_MS} ms`)),
        SYSLOG_TIMEOUT_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
};

/** UDP: one datagram per message, best effort by nature. */
async function sendUdp(r: Receiver, messages: string[]): Promise<void> {
  const socket = createSocket(isIP(r.host) === 6 ? 'udp6' : 'udp4');
  try {
    for (const message of messages) {
      await withTimeout(
        new Promise<void>((resolve, reject) =>
          socket.send(Buffer.from(message, 'utf8'), r.port, r.host, (err) => (err ? reject(err) : resolve())),
        ),
        `${r.host}:${r.port}`,
      );
    }
  } finally {
    socket.close();
  }
}

/**
 * TCP or TLS: connects, writes the octet-counted messages, then closes gracefully and waits
 * for the peer's side of the close, so a receiver that died meanwhile shows as an error.
 */
async function sendStream(r: Receiver, messages: string[]): Promise<void> {
  const where = `${r.host}:${r.port}`;
  const socket: Socket = await withTimeout(
    new Promise<Socket>((resolve, reject) => {
      const s =
        r.protocol === 'tls'
          ? tlsConnect({
              host: r.host,
              port: r.port,
              ...(isIP(r.host) ? {} : { servername: r.host }),
              ...(r.ca ? { ca: r.ca } : {}),
              ...(r.cert && r.key ? { cert: r.cert, key: r.key } : {}),
              rejectUnauthorized: true,
              minVersion: 'TLSv1.2',
            })
          : netConnect({ host: r.host, port: r.port });
      s.once(r.protocol === 'tls' ? 'secureConnect' : 'connect', () => resolve(s));
      s.once('error', (err: Error) => {
        s.destroy();
        reject(err);
      });
    }),
    where,
  );
  try {
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.write(Buffer.concat(messages.map(frameOctetCounted)), (err) =>
          err ? reject(err) : resolve(),
        );
      }),
      where,
    );
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.once('close', (hadError) =>
          hadError ? reject(new Error(`${where}: closed with an error`)) : resolve(),
        );
        socket.end();
        // The receiver may keep its side open: our FIN is out once 'finish' fires.
        socket.once('finish', () => setTimeout(() => socket.destroy(), 200).unref());
      }),
      where,
    );
  } finally {
    socket.destroy();
  }
}

/** Sends the messages to a receiver; rejects with the reason when any is not delivered. */
export function deliver(r: Receiver, messages: string[]): Promise<void> {
  if (messages.length === 0) return Promise.resolve();
  return r.protocol === 'udp' ? sendUdp(r, messages) : sendStream(r, messages);
}
