import { readFileSync } from 'node:fs';
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

/** Valid requests of several shapes (1.2 and 2.0) the fuzzer starts from. */
function seeds(key: string): Buffer[] {
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
    const starting = seeds(key);
    let conn = await Connection.open(port, files);
    let sent = 0;
    let answered = 0;
    let created = 0;
    const unexpected: string[] = [];
    const end = Date.now() + 4000;
    while (Date.now() < end) {
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
