import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { call, ok, type TestServer } from '../../test/harness.js';
import { ttlv } from './kmip.message.js';
import { DEFAULT_KMIP_LIMITS } from './kmip.listener.js';
import { startKmipServer, type KmipServer } from './test/kmip-fixture.js';
import { OPERATION, RESULT_REASON, TAG } from './kmip.tags.js';
import { decodeTtlv, encodeTtlv, type Ttlv } from './kmip.ttlv.js';

/** A connection that sends messages and reads whole answers, one at a time. */
class Connection {
  private pending = Buffer.alloc(0);
  private waiting: ((answer: Buffer | null) => void) | null = null;
  closed = false;
  private constructor(readonly socket: TLSSocket) {
    socket.on('data', (chunk: Buffer) => {
      this.pending = Buffer.concat([this.pending, chunk]);
      this.deliver();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiting?.(null);
      this.waiting = null;
    });
    socket.on('error', () => undefined);
  }
  static open(port: number, files: { cert: string; key: string }): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const s = connect({
        host: '127.0.0.1',
        port,
        rejectUnauthorized: false,
        cert: readFileSync(files.cert),
        key: readFileSync(files.key),
      });
      s.once('secureConnect', () => resolve(new Connection(s)));
      s.once('error', reject);
    });
  }
  private deliver() {
    if (this.pending.length < 8) return;
    const length = 8 + this.pending.readUInt32BE(4);
    if (this.pending.length < length || !this.waiting) return;
    const answer = this.pending.subarray(0, length);
    this.pending = this.pending.subarray(length);
    const w = this.waiting;
    this.waiting = null;
    w(answer);
  }
  /** Sends `bytes`; the answer, or null when the server closed or `ms` passed without one. */
  send(bytes: Buffer, ms = 2000): Promise<Buffer | null> {
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        resolve(null);
      }, ms);
      this.waiting = (answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
      this.socket.write(bytes);
      this.deliver();
    });
  }
  close() {
    this.socket.destroy();
  }
}

const header = (minor: number, count: number) =>
  ttlv.structure(TAG.RequestHeader, [
    ttlv.structure(TAG.ProtocolVersion, [
      ttlv.integer(TAG.ProtocolVersionMajor, minor === 0 ? 2 : 1),
      ttlv.integer(TAG.ProtocolVersionMinor, minor),
    ]),
    ttlv.integer(TAG.BatchCount, count),
  ]);
const request = (minor: number, items: Ttlv[]) =>
  encodeTtlv(ttlv.structure(TAG.RequestMessage, [header(minor, items.length), ...items]));
const item = (op: keyof typeof OPERATION, payload: Ttlv[]) =>
  ttlv.structure(TAG.BatchItem, [
    ttlv.enumeration(TAG.Operation, OPERATION[op]),
    ttlv.structure(TAG.RequestPayload, payload),
  ]);

/** Valid requests of several shapes (1.2 and 2.0) the fuzzer starts from; with `der`, a certificate's and secret data's Register too. */
function seeds(key: string, der?: Buffer): Buffer[] {
  const uid = ttlv.text(TAG.UniqueIdentifier, key);
  const aes12 = ttlv.structure(TAG.TemplateAttribute, [
    ttlv.structure(TAG.Attribute, [
      ttlv.text(TAG.AttributeName, 'Cryptographic Algorithm'),
      ttlv.enumeration(TAG.AttributeValue, 3),
    ]),
    ttlv.structure(TAG.Attribute, [
      ttlv.text(TAG.AttributeName, 'Cryptographic Length'),
      ttlv.integer(TAG.AttributeValue, 128),
    ]),
    ttlv.structure(TAG.Attribute, [
      ttlv.text(TAG.AttributeName, 'x-fuzz'),
      ttlv.text(TAG.AttributeValue, 'seed'),
    ]),
  ]);
  return [
    request(2, [item('Create', [ttlv.enumeration(TAG.ObjectType, 2), aes12])]),
    request(0, [item('Encrypt', [uid, ttlv.bytes(TAG.Data, Buffer.from('fuzz me'))])]),
    request(0, [item('GetAttributes', [uid]), item('Locate', [ttlv.integer(TAG.MaximumItems, 3)])]),
    request(4, [item('Get', [uid]), item('Query', [ttlv.enumeration(TAG.QueryFunction, 1)])]),
    ...(der
      ? [
          request(0, [
            item('Register', [
              ttlv.enumeration(TAG.ObjectType, 1),
              ttlv.structure(TAG.Attributes, []),
              ttlv.structure(TAG.Certificate, [
                ttlv.enumeration(TAG.CertificateType, 1),
                ttlv.bytes(TAG.CertificateValue, der),
              ]),
            ]),
            item('GetAttributes', []),
          ]),
          request(2, [
            item('Register', [
              ttlv.enumeration(TAG.ObjectType, 7),
              ttlv.structure(TAG.TemplateAttribute, []),
              ttlv.structure(TAG.SecretData, [
                ttlv.enumeration(TAG.SecretDataType, 2),
                ttlv.structure(TAG.KeyBlock, [
                  ttlv.enumeration(TAG.KeyFormatType, 2),
                  ttlv.structure(TAG.KeyValue, [ttlv.bytes(TAG.KeyMaterial, Buffer.from([0xff, 0, 1]))]),
                ]),
              ]),
            ]),
            item('Get', []),
          ]),
        ]
      : []),
  ];
}

/** A deterministic generator (xorshift), so a failing run can be replayed from its seed. */
function random(seed: number) {
  let x = seed || 1;
  return (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

/** One mutation of a message: flipped bytes, a lying length, a cut, a repeated or dropped span. */
function mutate(message: Buffer, r: (n: number) => number): Buffer {
  const m = Buffer.from(message);
  switch (r(6)) {
    case 0:
      for (let i = 0, n = 1 + r(4); i < n; i++) m[r(m.length)] = r(256);
      return m;
    case 1: {
      // A length field (4 bytes after a tag and type) made to lie.
      const at = 8 * (1 + r(Math.max(1, (m.length >> 3) - 1))) + 4;
      if (at + 4 <= m.length) m.writeUInt32BE(r(2) ? r(1 << 16) : 0xfffffff8, at);
      return m;
    }
    case 2:
      return m.subarray(0, 8 + r(m.length - 8));
    case 3: {
      const from = 8 + r(m.length - 8);
      const span = m.subarray(from, from + 8 * (1 + r(4)));
      const out = Buffer.concat([m.subarray(0, from), span, m.subarray(from)]);
      out.writeUInt32BE(out.length - 8, 4);
      return out;
    }
    case 4: {
      const from = 8 + 8 * r((m.length - 8) >> 3);
      const out = Buffer.concat([m.subarray(0, from), m.subarray(from + 16)]);
      out.writeUInt32BE(Math.max(0, out.length - 8), 4);
      return out;
    }
    default:
      // A type byte changed.
      m[8 * (1 + r((m.length >> 3) - 1)) + 3] = r(12);
      return m;
  }
}

const resultsOf = (answer: Buffer) => {
  const message = decodeTtlv(answer) as Ttlv & { type: 'Structure' };
  expect(message.tag).toBe(TAG.ResponseMessage);
  return message.value
    .filter((i) => i.tag === TAG.BatchItem)
    .map((i) => (i as Ttlv & { type: 'Structure' }).value)
    .map((fields) => ({
      status: fields.find((f) => f.tag === TAG.ResultStatus)?.value,
      reason: fields.find((f) => f.tag === TAG.ResultReason)?.value,
      operation: fields.find((f) => f.tag === TAG.Operation)?.value,
    }));
};

describe('KMIP listener under hostile input (sqlite)', () => {
  let kmip: KmipServer;
  let server: TestServer;
  let token: string;
  let port: number;
  let key: string;
  let files: { cert: string; key: string };

  beforeAll(async () => {
    kmip = await startKmipServer({ KSP_KMIP_IDLE_SECONDS: '3' });
    ({ server, token, port } = kmip);
    ({ files } = await kmip.client(token, 'fuzz', 'Administrator'));
    key = ok(
      await call(server, api.key.create, {
        token,
        body: { name: 'fuzz-key', algorithm: 'AES-256', usage_mask: 12, exportable: true },
      }),
    ).data.id;
  }, 60_000);
  afterAll(async () => kmip?.close());

  const keysNamed = async () =>
    (
      await server.database.db
        .selectFrom('kms_key')
        .select('id')
        .where('labels', 'like', '%x-fuzz%')
        .execute()
    ).length;

  it('answers mutated requests with a KMIP answer or a closed connection, never a crash or a half-made key', async () => {
    const r = random(0x5eed);
    const starting = seeds(
      key,
      Buffer.from(new X509Certificate(readFileSync(join(kmip.dir, 'server.pem'))).raw),
    );
    let conn = await Connection.open(port, files);
    let sent = 0;
    let answered = 0;
    let created = 0;
    const unexpected: string[] = [];
    // About 4 s of mutations, and never fewer than 60 (a loaded machine sends fewer in 4 s), within 40 s.
    const soft = Date.now() + 4000;
    const hard = Date.now() + 40_000;
    while ((Date.now() < soft || sent < 60) && Date.now() < hard) {
      const message = mutate(starting[r(starting.length)]!, r);
      const answer = await conn.send(message, 300);
      sent++;
      if (answer) {
        answered++;
        for (const result of resultsOf(answer)) {
          if (result.reason === RESULT_REASON.GeneralFailure) unexpected.push(message.toString('hex'));
          if (result.status === 0 && result.operation === OPERATION.Create) created++;
        }
      }
      if (!answer || conn.closed) {
        conn.close();
        conn = await Connection.open(port, files);
      }
    }
    conn.close();
    expect(unexpected).toEqual([]);
    expect(sent).toBeGreaterThan(50);
    expect(answered).toBeGreaterThan(0);
    // Every key a mutated Create made was answered as made, and no other was.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await keysNamed()).toBe(created);
    // Still serving.
    const again = await Connection.open(port, files);
    const answer = await again.send(seeds(key)[1]!);
    again.close();
    expect(resultsOf(answer!)[0]!.status).toBe(0);
  }, 60_000);

  it('answers malformed certificates and secret data with their Result Reason, stores nothing, and keeps serving', async () => {
    const der = Buffer.from(new X509Certificate(readFileSync(join(kmip.dir, 'server.pem'))).raw);
    const certificate = (fields: Ttlv[]) =>
      request(0, [
        item('Register', [
          ttlv.enumeration(TAG.ObjectType, 1),
          ttlv.structure(TAG.Attributes, []),
          ttlv.structure(TAG.Certificate, fields),
        ]),
      ]);
    const x509 = ttlv.enumeration(TAG.CertificateType, 1);
    const secret = (type: number, format: number, material: Ttlv) =>
      request(0, [
        item('Register', [
          ttlv.enumeration(TAG.ObjectType, 7),
          ttlv.structure(TAG.Attributes, []),
          ttlv.structure(TAG.SecretData, [
            ttlv.enumeration(TAG.SecretDataType, type),
            ttlv.structure(TAG.KeyBlock, [
              ttlv.enumeration(TAG.KeyFormatType, format),
              ttlv.structure(TAG.KeyValue, [material]),
            ]),
          ]),
        ]),
      ]);
    const bytes = (b: Buffer) => ttlv.bytes(TAG.KeyMaterial, b);
    const R = RESULT_REASON;
    const cases: [string, Buffer, number][] = [
      [
        'bytes that are not DER',
        certificate([x509, ttlv.bytes(TAG.CertificateValue, Buffer.from('not a certificate'))]),
        R.InvalidField,
      ],
      [
        'PEM text',
        certificate([x509, ttlv.bytes(TAG.CertificateValue, readFileSync(join(kmip.dir, 'server.pem')))]),
        R.InvalidField,
      ],
      [
        'DER with bytes after it',
        certificate([x509, ttlv.bytes(TAG.CertificateValue, Buffer.concat([der, Buffer.from([0, 0])]))]),
        R.InvalidField,
      ],
      [
        'a truncated DER',
        certificate([x509, ttlv.bytes(TAG.CertificateValue, der.subarray(0, der.length - 9))]),
        R.InvalidField,
      ],
      [
        'an oversize value',
        certificate([x509, ttlv.bytes(TAG.CertificateValue, Buffer.concat([der, Buffer.alloc(70_000)]))]),
        R.InvalidField,
      ],
      [
        'a PGP certificate',
        certificate([ttlv.enumeration(TAG.CertificateType, 2), ttlv.bytes(TAG.CertificateValue, der)]),
        R.FeatureNotSupported,
      ],
      [
        'a value of the wrong type',
        certificate([x509, ttlv.text(TAG.CertificateValue, 'MIIB')]),
        R.InvalidField,
      ],
      ['no value', certificate([x509]), R.MissingData],
      [
        'no Certificate',
        request(0, [item('Register', [ttlv.enumeration(TAG.ObjectType, 1)])]),
        R.MissingData,
      ],
      ['secret data of type 3', secret(3, 2, bytes(Buffer.from('x'))), R.FeatureNotSupported],
      ['secret data as PKCS#8', secret(1, 4, bytes(Buffer.from('x'))), R.KeyFormatTypeNotSupported],
      ['empty secret data', secret(1, 2, bytes(Buffer.alloc(0))), R.InvalidField],
      ['oversize secret data', secret(2, 2, bytes(Buffer.alloc(48 * 1024 + 1, 7))), R.InvalidField],
      ['a password that is not UTF-8', secret(1, 2, bytes(Buffer.from([0xc3, 0x28]))), R.InvalidField],
      ['key material that is a structure', secret(1, 2, ttlv.structure(TAG.KeyMaterial, [])), R.InvalidField],
      [
        'a certificate identifier that is not one',
        request(0, [item('Get', [ttlv.text(TAG.UniqueIdentifier, 'cert-1')])]),
        R.ItemNotFound,
      ],
      [
        'an unknown secret',
        request(0, [item('Get', [ttlv.text(TAG.UniqueIdentifier, `secret-${crypto.randomUUID()}`)])]),
        R.ItemNotFound,
      ],
      [
        'a certificate where a key is needed',
        request(0, [
          item('Encrypt', [
            ttlv.text(TAG.UniqueIdentifier, `cert-${crypto.randomUUID()}`),
            ttlv.bytes(TAG.Data, Buffer.from('x')),
          ]),
        ]),
        R.IllegalOperation,
      ],
    ];
    const count = async (table: 'cert_external' | 'credential') =>
      (await server.database.db.selectFrom(table).select('id').execute()).length;
    const before = [await count('cert_external'), await count('credential')];
    const conn = await Connection.open(port, files);
    const answered: { what: string; status: unknown; reason: unknown }[] = [];
    for (const [what, message] of cases) {
      const answer = await conn.send(message);
      const got = answer ? resultsOf(answer)[0] : undefined;
      answered.push({ what, status: got?.status, reason: got?.reason });
    }
    expect(answered).toEqual(cases.map(([what, , reason]) => ({ what, status: 1, reason })));
    // Nothing was stored, and the connection still serves.
    expect([await count('cert_external'), await count('credential')]).toEqual(before);
    expect(resultsOf((await conn.send(seeds(key)[1]!))!)[0]!.status).toBe(0);
    conn.close();
  }, 30_000);

  it('refuses a GCM tag shorter than 96 bits, and round-trips with one of 16 bytes', async () => {
    const encrypt = (tagLength: number) =>
      request(0, [
        item('Encrypt', [
          ttlv.text(TAG.UniqueIdentifier, key),
          ttlv.structure(TAG.CryptographicParameters, [
            ttlv.enumeration(TAG.BlockCipherMode, 9),
            ttlv.integer(TAG.TagLength, tagLength),
          ]),
          ttlv.bytes(TAG.Data, Buffer.from('tag length')),
        ]),
      ]);
    const conn = await Connection.open(port, files);
    const short = resultsOf((await conn.send(encrypt(4)))!);
    expect(short[0]).toMatchObject({ status: 1, reason: RESULT_REASON.CryptographicFailure });
    const full = resultsOf((await conn.send(encrypt(16)))!);
    conn.close();
    expect(full[0]!.status).toBe(0);
  }, 30_000);

  it('closes an idle connection, and refuses a client past its connection limit, audited', async () => {
    const idle = await Connection.open(port, files);
    await new Promise((resolve) => setTimeout(resolve, 3600));
    expect(idle.closed).toBe(true);

    // The client's limit of connections, opened at once (a connection counts once it has made a
    // request), well within the idle limit.
    const open = await Promise.all(
      Array.from({ length: DEFAULT_KMIP_LIMITS.connectionsPerClient }, async () => {
        const c = await Connection.open(port, files);
        expect(resultsOf((await c.send(seeds(key)[3]!))!)[0]!.status).toBe(0);
        return c;
      }),
    );
    const extra = await Connection.open(port, files);
    const refused = resultsOf((await extra.send(seeds(key)[1]!))!);
    expect(refused[0]).toMatchObject({ status: 1, reason: RESULT_REASON.PermissionDenied });
    for (const c of open) c.close();
    extra.close();
    const audited = await server.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'kmip.connect')
      .execute();
    expect(
      audited.some((a) => (JSON.parse(a.details) as { reason?: string }).reason === 'clientConnections'),
    ).toBe(true);
  }, 60_000);
});
