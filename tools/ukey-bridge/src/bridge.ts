#!/usr/bin/env node
/**
 * ksp-ukey-bridge: lets the KSP console, in the browser, use a UKEY (a PKCS#11 token
 * such as a USB key driven by OpenSC, or SoftHSM2) to sign the server's login challenge.
 * It listens on loopback only and answers only the console origins it is given.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import * as graphene from 'graphene-pk11';

export interface BridgeOptions {
  modulePath: string;
  host: string;
  port: number;
  allowedOrigins: string[];
}

class BridgeError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const toPem = (der: Buffer) =>
  `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .match(/.{1,64}/g)
    ?.join('\n')}\n-----END CERTIFICATE-----\n`;

function pkcs11Reason(err: unknown): BridgeError {
  const text = err instanceof Error ? err.message : String(err);
  if (text.includes('CKR_PIN_INCORRECT')) return new BridgeError(401, 'The PIN is incorrect');
  if (text.includes('CKR_PIN_LOCKED'))
    return new BridgeError(423, 'The token is locked: too many wrong PINs');
  if (text.includes('CKR_PIN_LEN_RANGE')) return new BridgeError(400, 'The PIN has the wrong length');
  return new BridgeError(500, `Token error: ${text.split('\n')[0]?.slice(0, 200) ?? 'unknown'}`);
}

/** The token API the bridge needs, over one loaded PKCS#11 module. */
export function openTokens(modulePath: string) {
  const mod = graphene.Module.load(modulePath, 'ukey');
  mod.initialize();

  function slots() {
    const found: { slot: graphene.Slot; serial: string; label: string }[] = [];
    const list = mod.getSlots(true);
    for (let i = 0; i < list.length; i++) {
      const slot = list.items(i);
      const token = slot.getToken();
      // Skip empty slots (SoftHSM always offers one uninitialized slot).
      if ((token.flags & graphene.TokenFlag.TOKEN_INITIALIZED) === 0) continue;
      found.push({ slot, serial: token.serialNumber.trim(), label: token.label.trim() });
    }
    return found;
  }

  function pick(serial: string | undefined) {
    const all = slots();
    const chosen = serial ? all.find((s) => s.serial === serial) : all[0];
    if (!chosen)
      throw new BridgeError(404, serial ? `No token with serial ${serial}` : 'No token is plugged in');
    return chosen;
  }

  function firstCertificate(session: graphene.Session) {
    const certs = session.find({ class: graphene.ObjectClass.CERTIFICATE });
    if (certs.length === 0) throw new BridgeError(404, 'The token holds no certificate');
    const cert = certs.items(0).toType<graphene.X509Certificate>();
    return { der: Buffer.from(cert.value), id: Buffer.from(cert.id) };
  }

  return {
    list: () => slots().map(({ serial, label }) => ({ serial, label })),

    certificate(serial: string | undefined) {
      const { slot, serial: s } = pick(serial);
      const session = slot.open(graphene.SessionFlag.SERIAL_SESSION);
      try {
        return { serial: s, certificate: toPem(firstCertificate(session).der) };
      } finally {
        session.close();
      }
    },

    /** Signs SHA-256 of `data` with the private key paired (same CKA_ID) with the certificate. */
    sign(serial: string | undefined, pin: string, data: string) {
      const { slot, serial: s } = pick(serial);
      const session = slot.open(graphene.SessionFlag.SERIAL_SESSION);
      try {
        try {
          session.login(pin, graphene.UserType.USER);
        } catch (err) {
          throw pkcs11Reason(err);
        }
        const cert = firstCertificate(session);
        const keys = session.find({ class: graphene.ObjectClass.PRIVATE_KEY, id: cert.id });
        if (keys.length === 0) throw new BridgeError(404, 'No private key goes with the certificate');
        const key = keys.items(0).toType<graphene.PrivateKey>();
        let signature: Buffer;
        try {
          if (key.type === graphene.KeyType.EC) {
            // Raw ECDSA (r||s) over a digest made here: tokens often lack ECDSA_SHA256.
            const digest = createHash('sha256').update(data, 'utf8').digest();
            signature = Buffer.from(session.createSign('ECDSA', key).once(digest));
          } else if (key.type === graphene.KeyType.RSA) {
            signature = Buffer.from(
              session.createSign('SHA256_RSA_PKCS', key).once(Buffer.from(data, 'utf8')),
            );
          } else {
            throw new BridgeError(400, 'Only EC and RSA keys can sign a KSP login');
          }
        } catch (err) {
          throw err instanceof BridgeError ? err : pkcs11Reason(err);
        }
        session.logout();
        return { serial: s, signature: signature.toString('base64'), certificate: toPem(cert.der) };
      } finally {
        session.close();
      }
    },

    close: () => mod.finalize(),
  };
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
  const tokens = openTokens(options.modulePath);
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
          const { pin, data, serial } = body;
          if (typeof pin !== 'string' || pin.length < 4 || pin.length > 64)
            throw new BridgeError(400, 'pin: 4 to 64 characters');
          if (typeof data !== 'string' || data.length === 0 || data.length > 1024)
            throw new BridgeError(400, 'data: 1 to 1024 characters');
          if (serial !== undefined && typeof serial !== 'string')
            throw new BridgeError(400, 'serial: must be a string');
          return send(res, 200, tokens.sign(serial, pin, data));
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
                       [--module /usr/lib/x86_64-linux-gnu/opensc-pkcs11.so] [--port 41414] [--host 127.0.0.1]`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      module: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'allow-origin': { type: 'string', multiple: true },
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
