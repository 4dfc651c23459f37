import { createHash, randomUUID, sign, type KeyObject } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import { SignJWT } from 'jose';
import { CLIENT_SIGNATURE_CONTEXT_LINE, LOG_UPLOAD_AUDIENCE, type Envelope } from './wire.js';

export interface Endpoint {
  server: string;
  ca?: string;
}

export interface PostOptions {
  headers?: Record<string, string>;
  /** ms before the request is abandoned. */
  timeoutMs?: number;
  /** Abandons the request (the daemon stopping while a config call is held open). */
  signal?: AbortSignal;
}

/** POSTs a JSON body and reads the envelope (`{code, msg, data}`). */
export function post<T>(
  endpoint: Endpoint,
  path: string,
  body: string,
  o: PostOptions = {},
): Promise<Envelope<T>> {
  const url = new URL(path, endpoint.server);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  if (o.signal?.aborted) return Promise.reject(new Error(`${path}: aborted`));
  return new Promise<Envelope<T>>((settle, fail) => {
    // The signal's listener lives as long as this request: a daemon that sends thousands of
    // requests on one signal must not pile listeners on it.
    const abort = () => req.destroy(new Error(`${path}: aborted`));
    const done = () => o.signal?.removeEventListener('abort', abort);
    const resolve = (v: Envelope<T>) => {
      done();
      settle(v);
    };
    const reject = (err: unknown) => {
      done();
      fail(err instanceof Error ? err : new Error(String(err)));
    };
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...o.headers,
        },
        ...(endpoint.ca ? { ca: readFileSync(endpoint.ca) } : {}),
        timeout: o.timeoutMs ?? 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve(JSON.parse(text) as Envelope<T>);
          } catch {
            reject(new Error(`${path}: HTTP ${res.statusCode ?? '?'} ${text.slice(0, 200)}`));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${path}: timed out`)));
    req.on('error', reject);
    req.on('close', done);
    o.signal?.addEventListener('abort', abort, { once: true });
    req.end(body);
  });
}

let lastTimestamp = 0;
/** Timestamps of signed calls only grow (the server refuses one not newer than the last). */
export function nextTimestamp(): number {
  lastTimestamp = Math.max(Date.now(), lastTimestamp + 1);
  return lastTimestamp;
}

/** The body of a signed agent call (heartbeat, config): contracts/calls/client.ts. */
export function signedBody(clientId: string, key: KeyObject, payload: object) {
  const text = JSON.stringify(payload);
  const timestamp = nextTimestamp();
  const digest = createHash('sha256').update(text, 'utf8').digest('hex');
  const signed = [CLIENT_SIGNATURE_CONTEXT_LINE, clientId, String(timestamp), digest].join('\n');
  const signature = sign(key.asymmetricKeyType === 'ed25519' ? null : 'sha256', Buffer.from(signed), key);
  return JSON.stringify({
    client_id: clientId,
    timestamp,
    payload: text,
    signature: signature.toString('base64'),
  });
}

/** `Authorization: Agent <JWS>` for a client log upload of exactly `body` (docs/agent-log-upload.md). */
export async function logAuthorization(key: KeyObject, certPem: string, body: string): Promise<string> {
  const der = certPem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  const type = key.asymmetricKeyType;
  const alg = type === 'ec' ? 'ES256' : type === 'ed25519' ? 'EdDSA' : 'RS256';
  const now = Math.floor(Date.now() / 1000);
  const jws = await new SignJWT({ bh: createHash('sha256').update(body).digest('base64url') })
    .setProtectedHeader({ alg, typ: 'JWT', x5c: [der] })
    .setAudience(LOG_UPLOAD_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + 120)
    .setJti(randomUUID())
    .sign(key);
  return `Agent ${jws}`;
}
