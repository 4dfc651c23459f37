#!/usr/bin/env node
/**
 * ksp-ukey-bridge: lets the KSP console, in the browser, use a UKEY (a PKCS#11 token
 * such as a USB key driven by OpenSC, or SoftHSM2) to sign the server's login challenge.
 * It listens on loopback only and answers only the console origins it is given.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { BridgeError, openTokens, pkcs11Reason } from './tokens.js';

export { openTokens } from './tokens.js';

export interface BridgeOptions {
  modulePath: string;
  host: string;
  port: number;
  allowedOrigins: string[];
  /** Sign SM2 in the bridge with a key read from the token (tokens without an SM2 mechanism). */
  sm2InBridge?: boolean;
}

/** The PIN and the optional token serial every token call takes. */
function common(body: Record<string, unknown>): { pin: string; serial: string | undefined } {
  const { pin, serial } = body;
  if (typeof pin !== 'string' || pin.length < 4 || pin.length > 64)
    throw new BridgeError(400, 'pin: 4 to 64 characters');
  if (serial !== undefined && serial !== null && typeof serial !== 'string')
    throw new BridgeError(400, 'serial: must be a string');
  return { pin, serial: typeof serial === 'string' && serial !== '' ? serial : undefined };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 16 * 1024) throw new BridgeError(413, 'Request too large');
    chunks.push(chunk as Buffer);
  }
  try {
    const value = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    if (typeof value !== 'object' || value === null) throw new Error('not an object');
    return value as Record<string, unknown>;
  } catch {
    throw new BridgeError(400, 'The body must be a JSON object');
  }
}

export function startBridge(
  options: BridgeOptions,
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  if (!['127.0.0.1', '::1', 'localhost'].includes(options.host)) {
    throw new Error('The bridge listens on loopback only (127.0.0.1 or ::1)');
  }
  const tokens = openTokens(options.modulePath, { sm2InBridge: options.sm2InBridge === true });
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    const origin = req.headers.origin;
    if (origin) {
      if (!options.allowedOrigins.includes(origin))
        return send(res, 403, { error: `Origin ${origin} is not allowed` });
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('vary', 'Origin');
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        // Chrome's local-network access asks before a page reaches a loopback service.
        ...(req.headers['access-control-request-private-network'] === 'true'
          ? { 'access-control-allow-private-network': 'true' }
          : {}),
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': 'content-type',
        'access-control-max-age': '600',
      });
      return res.end();
    }
    const url = new URL(req.url ?? '/', 'http://bridge');
    void (async () => {
      try {
        if (req.method === 'GET' && url.pathname === '/status')
          return send(res, 200, { tokens: tokens.list() });
        if (req.method === 'GET' && url.pathname === '/certificate') {
          return send(res, 200, tokens.certificate(url.searchParams.get('serial') ?? undefined));
        }
        if (req.method === 'POST' && url.pathname === '/sign') {
          const body = await readJson(req);
          const { pin, serial } = common(body);
          const { data } = body;
          if (typeof data !== 'string' || data.length === 0 || data.length > 1024)
            throw new BridgeError(400, 'data: 1 to 1024 characters');
          return send(res, 200, tokens.sign(serial, pin, data));
        }
        if (req.method === 'POST' && url.pathname === '/keygen') {
          const body = await readJson(req);
          const { pin, serial } = common(body);
          const { algorithm, common_name: commonName } = body;
          if (algorithm !== 'RSA-2048' && algorithm !== 'SM2')
            throw new BridgeError(400, 'algorithm: RSA-2048 or SM2');
          if (typeof commonName !== 'string' || commonName.trim().length === 0 || commonName.length > 64)
            throw new BridgeError(400, 'common_name: 1 to 64 characters');
          return send(res, 200, tokens.keygen({ serial, pin, algorithm, commonName: commonName.trim() }));
        }
        if (req.method === 'POST' && url.pathname === '/install') {
          const body = await readJson(req);
          const { pin, serial } = common(body);
          const keyId = body.key_id;
          if (typeof keyId !== 'string' || !/^[0-9a-f]{2,64}$/.test(keyId))
            throw new BridgeError(400, 'key_id: the hexadecimal key_id /keygen answered');
          return send(
            res,
            200,
            tokens.install({
              serial,
              pin,
              keyId,
              certificate: body.certificate,
              encryptionCertificate: body.encryption_certificate ?? undefined,
              envelopedKey: body.enveloped_key ?? undefined,
            }),
          );
        }
        send(res, 404, { error: 'Unknown path' });
      } catch (err) {
        const e = err instanceof BridgeError ? err : pkcs11Reason(err);
        send(res, e.status, { error: e.message });
      }
    })();
  });
  return new Promise((resolve) => {
    server.listen(options.port, options.host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : options.port;
      resolve({
        server,
        url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
        close: () =>
          new Promise<void>((done) =>
            server.close(() => {
              tokens.close();
              done();
            }),
          ),
      });
    });
  });
}

const usage = `Usage: ksp-ukey-bridge --allow-origin ORIGIN [--allow-origin ORIGIN ...]
                       [--module /usr/lib/x86_64-linux-gnu/opensc-pkcs11.so] [--port 41414] [--host 127.0.0.1]
                       [--sm2-in-bridge]`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      module: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'allow-origin': { type: 'string', multiple: true },
      'sm2-in-bridge': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const allowedOrigins = values['allow-origin'] ?? [];
  if (allowedOrigins.length === 0) throw new Error(`Give the console origin with --allow-origin\n${usage}`);
  const bridge = await startBridge({
    modulePath: values.module ?? process.env.KSP_UKEY_MODULE ?? '/usr/lib/softhsm/libsofthsm2.so',
    host: values.host ?? '127.0.0.1',
    port: Number(values.port ?? 41414),
    allowedOrigins,
    sm2InBridge: values['sm2-in-bridge'] === true,
  });
  console.log(`ksp-ukey-bridge listening on ${bridge.url} for ${allowedOrigins.join(', ')}`);
  const stop = () => void bridge.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main().catch((err: unknown) => {
    console.error(`ksp-ukey-bridge: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
