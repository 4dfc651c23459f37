import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLIENT_LOG_AUDIENCE } from '@ksp/contracts';
import { openssl } from './openssl.js';

/** An agent's key pair (EC P-256) and a CSR for it, made by openssl (as an agent would). */
export function agentKeyAndCsr(
  cn: string,
  keyArgs: string[] = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
) {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-agent-'));
  try {
    openssl(
      [
        'req',
        '-new',
        ...keyArgs,
        '-nodes',
        '-keyout',
        'agent.key',
        '-subj',
        `/CN=${cn}`,
        '-out',
        'agent.csr',
      ],
      dir,
    );
    return {
      key: createPrivateKey(readFileSync(join(dir, 'agent.key'))),
      csr: readFileSync(join(dir, 'agent.csr'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A self-signed client certificate and its key (made by openssl: no CA of the server). */
export function selfSignedAgent(cn: string) {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-agent-'));
  try {
    openssl(
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        'a.key',
        '-subj',
        `/CN=${cn}`,
        '-days',
        '30',
        '-addext',
        'extendedKeyUsage=clientAuth',
        '-out',
        'a.pem',
      ],
      dir,
    );
    return {
      key: createPrivateKey(readFileSync(join(dir, 'a.key'))),
      certPem: readFileSync(join(dir, 'a.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const derOf = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

export interface TokenOptions {
  key: KeyObject;
  certPem: string;
  body: string;
  /** Seconds since the epoch; default now. */
  iat?: number;
  exp?: number;
  jti?: string;
  aud?: string;
  bh?: string;
  alg?: string;
}

let counter = 0;

/** `Agent <JWS>` for an upload of `body`, signed as docs/agent-log-upload.md says. */
export function agentAuthorization(o: TokenOptions): string {
  const iat = o.iat ?? Math.floor(Date.now() / 1000);
  const type = o.key.asymmetricKeyType;
  const alg = o.alg ?? (type === 'ec' ? 'ES256' : type === 'ed25519' ? 'EdDSA' : 'RS256');
  const header = { alg, typ: 'JWT', x5c: [derOf(o.certPem)] };
  const claims = {
    aud: o.aud ?? CLIENT_LOG_AUDIENCE,
    iat,
    exp: o.exp ?? iat + 120,
    jti: o.jti ?? `jti-${process.pid}-${Date.now()}-${++counter}`,
    bh: o.bh ?? createHash('sha256').update(o.body).digest('base64url'),
  };
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${b64(header)}.${b64(claims)}`;
  const signature =
    alg === 'EdDSA'
      ? sign(null, Buffer.from(input), o.key)
      : alg.startsWith('ES')
        ? sign(`sha${alg.slice(2)}`, Buffer.from(input), { key: o.key, dsaEncoding: 'ieee-p1363' })
        : sign(`sha${alg.slice(2)}`, Buffer.from(input), o.key);
  return `Agent ${input}.${signature.toString('base64url')}`;
}
