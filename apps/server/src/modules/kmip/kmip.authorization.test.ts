import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, builtInRoles } from '@ksp/contracts';
import { call, domainWithAdmin, ok, type TestServer } from '../../test/harness.js';
import { ttlv } from './kmip.message.js';
import { selfSignedDerFile, startKmipServer, type KmipServer } from './test/kmip-fixture.js';
import { requestMessage } from './test/kmip-request.js';
import { OPERATION, TAG, type OperationName } from './kmip.tags.js';
import { decodeTtlv, type Ttlv } from './kmip.ttlv.js';

/**
 * The permission each KMIP operation needs, written from docs/kmip.md's table (the REST twin's
 * permission), independently of the code's own declaration. `null`: any KMIP client.
 */
const NEEDS: Record<OperationName, string | null> = {
  Create: 'key:write',
  CreateKeyPair: 'key:write',
  Register: 'key:write',
  ReKey: 'key:write',
  Locate: 'key:read',
  Get: 'key:export',
  GetAttributes: 'key:read',
  GetAttributeList: 'key:read',
  AddAttribute: 'key:write',
  ModifyAttribute: 'key:write',
  DeleteAttribute: 'key:write',
  SetAttribute: 'key:write',
  Activate: 'key:write',
  Revoke: 'key:write',
  Destroy: 'key:write',
  Query: null,
  DiscoverVersions: null,
  Encrypt: 'key:use',
  Decrypt: 'key:use',
  Sign: 'key:use',
  SignatureVerify: 'key:use',
  Mac: 'key:use',
  MacVerify: 'key:use',
  RngRetrieve: null,
};
/** Operations that read or change an existing key before anything else: key:read comes first. */
const READS_FIRST = new Set<OperationName>([
  'AddAttribute',
  'ModifyAttribute',
  'DeleteAttribute',
  'SetAttribute',
  'Sign',
  'SignatureVerify',
  'GetAttributes',
  'GetAttributeList',
]);
const NAMES_A_KEY = new Set<OperationName>(
  (Object.keys(NEEDS) as OperationName[]).filter(
    (op) =>
      !['Create', 'CreateKeyPair', 'Register', 'Locate', 'Query', 'DiscoverVersions', 'RngRetrieve'].includes(
        op,
      ),
  ),
);

/** A minimal, valid payload of each operation in KMIP 2.0, naming `key` where it names one. */
function payloadOf(op: OperationName, key: string): Ttlv[] {
  const uid = ttlv.text(TAG.UniqueIdentifier, key);
  const data = ttlv.bytes(TAG.Data, Buffer.from('matrix'));
  const aes = [ttlv.enumeration(TAG.CryptographicAlgorithm, 3), ttlv.integer(TAG.CryptographicLength, 256)];
  switch (op) {
    case 'Create':
      return [ttlv.enumeration(TAG.ObjectType, 2), ttlv.structure(TAG.Attributes, aes)];
    case 'CreateKeyPair':
      return [
        ttlv.structure(TAG.CommonAttributes, [
          ttlv.enumeration(TAG.CryptographicAlgorithm, 6),
          ttlv.integer(TAG.CryptographicLength, 256),
        ]),
      ];
    case 'Register':
      return [
        ttlv.enumeration(TAG.ObjectType, 2),
        ttlv.structure(TAG.Attributes, []),
        ttlv.structure(TAG.SymmetricKey, [
          ttlv.structure(TAG.KeyBlock, [
            ttlv.enumeration(TAG.KeyFormatType, 1),
            ttlv.structure(TAG.KeyValue, [ttlv.bytes(TAG.KeyMaterial, Buffer.alloc(16, 7))]),
            ttlv.enumeration(TAG.CryptographicAlgorithm, 3),
            ttlv.integer(TAG.CryptographicLength, 128),
          ]),
        ]),
      ];
    case 'Locate':
      return [];
    case 'AddAttribute':
    case 'SetAttribute':
      return [uid, ttlv.structure(TAG.NewAttribute, [ttlv.text(TAG.ObjectGroup, 'matrix')])];
    case 'ModifyAttribute':
      return [uid, ttlv.structure(TAG.NewAttribute, [ttlv.text(TAG.ObjectGroup, 'matrix-2')])];
    case 'DeleteAttribute':
      return [uid, ttlv.structure(TAG.CurrentAttribute, [ttlv.text(TAG.ObjectGroup, 'matrix-2')])];
    case 'Revoke':
      return [uid, ttlv.structure(TAG.RevocationReason, [ttlv.enumeration(TAG.RevocationReasonCode, 1)])];
    case 'Encrypt':
    case 'Decrypt':
    case 'Sign':
    case 'Mac':
      return [uid, data];
    case 'SignatureVerify':
      return [uid, data, ttlv.bytes(TAG.SignatureData, Buffer.alloc(64))];
    case 'MacVerify':
      return [uid, data, ttlv.bytes(TAG.MacData, Buffer.alloc(32))];
    case 'RngRetrieve':
      return [ttlv.integer(TAG.DataLength, 16)];
    case 'Query':
      return [ttlv.enumeration(TAG.QueryFunction, 1)];
    case 'DiscoverVersions':
      return [];
    default:
      return [uid];
  }
}

/**
 * The permission each operation on a certificate or secret data needs, written from
 * docs/kmip.md's tables (the REST twin's permission). Get of secret data is the applications'
 * read (credential:use), not a detail.
 */
const OBJECT_NEEDS = {
  'Register certificate': 'cert:write',
  'Locate certificates': 'cert:read',
  'Get certificate': 'cert:read',
  'Get Attributes of a certificate': 'cert:read',
  'Get Attribute List of a certificate': 'cert:read',
  'Destroy certificate': 'cert:write',
  'Register secret data': 'credential:write',
  'Locate secret data': 'credential:read',
  'Get secret data': 'credential:use',
  'Get Attributes of secret data': 'credential:read',
  'Get Attribute List of secret data': 'credential:read',
  'Destroy secret data': 'credential:write',
} as const;
type ObjectStep = keyof typeof OBJECT_NEEDS;

/** The certificates KMIP clients register: CA certificates (trust anchors) and leaf (end-entity) ones. */
const CERT_KINDS = ['CA', 'leaf'] as const;
type CertKind = (typeof CERT_KINDS)[number];

/** One 2.0 message of every operation on a certificate and on secret data (Continue), in OBJECT_NEEDS's order. */
function everyObjectOperation(o: { der: Buffer; cert: string; secret: string; name: string }): Buffer {
  const name = (text: string) =>
    ttlv.structure(TAG.Name, [ttlv.text(TAG.NameValue, text), ttlv.enumeration(TAG.NameType, 1)]);
  const ofType = (type: number) => ttlv.structure(TAG.Attributes, [ttlv.enumeration(TAG.ObjectType, type)]);
  const uid = (id: string) => [ttlv.text(TAG.UniqueIdentifier, id)];
  const steps: Record<ObjectStep, [OperationName, Ttlv[]]> = {
    'Register certificate': [
      'Register',
      [
        ttlv.enumeration(TAG.ObjectType, 1),
        ttlv.structure(TAG.Attributes, [name(o.name)]),
        ttlv.structure(TAG.Certificate, [
          ttlv.enumeration(TAG.CertificateType, 1),
          ttlv.bytes(TAG.CertificateValue, o.der),
        ]),
      ],
    ],
    'Locate certificates': ['Locate', [ofType(1)]],
    'Get certificate': ['Get', uid(o.cert)],
    'Get Attributes of a certificate': ['GetAttributes', uid(o.cert)],
    'Get Attribute List of a certificate': ['GetAttributeList', uid(o.cert)],
    'Destroy certificate': ['Destroy', uid(o.cert)],
    'Register secret data': [
      'Register',
      [
        ttlv.enumeration(TAG.ObjectType, 7),
        ttlv.structure(TAG.Attributes, [name(o.name)]),
        ttlv.structure(TAG.SecretData, [
          ttlv.enumeration(TAG.SecretDataType, 1),
          ttlv.structure(TAG.KeyBlock, [
            ttlv.enumeration(TAG.KeyFormatType, 2),
            ttlv.structure(TAG.KeyValue, [ttlv.bytes(TAG.KeyMaterial, Buffer.from('matrix password'))]),
          ]),
        ]),
      ],
    ],
    'Locate secret data': ['Locate', [ofType(7)]],
    'Get secret data': ['Get', uid(o.secret)],
    'Get Attributes of secret data': ['GetAttributes', uid(o.secret)],
    'Get Attribute List of secret data': ['GetAttributeList', uid(o.secret)],
    'Destroy secret data': ['Destroy', uid(o.secret)],
  };
  return batch(Object.values(steps));
}

/** One message holding every operation (Continue: each item answered on its own). */
function everyOperation(key: string): Buffer {
  return batch((Object.keys(NEEDS) as OperationName[]).map((op) => [op, payloadOf(op, key)]));
}

/** A KMIP 2.0 request of `items`, each answered on its own (Continue). */
const batch = (items: [OperationName, Ttlv[]][]) =>
  requestMessage(
    [2, 0],
    items.map(([op, payload]) => [OPERATION[op], payload]),
    true,
  );

interface Item {
  op: OperationName;
  status: number;
  reason: number | undefined;
  message: string | undefined;
  payload: Ttlv[];
}

function exchange(port: number, files: { cert: string; key: string }, bytes: Buffer): Promise<Item[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({
      host: '127.0.0.1',
      port,
      rejectUnauthorized: false,
      cert: readFileSync(files.cert),
      key: readFileSync(files.key),
    });
    socket.on('secureConnect', () => socket.write(bytes));
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const all = Buffer.concat(chunks);
      if (all.length >= 8 && all.length >= 8 + all.readUInt32BE(4)) {
        socket.end();
        const message = decodeTtlv(all) as Ttlv & { type: 'Structure' };
        const name = (code: unknown) =>
          (Object.keys(OPERATION) as OperationName[]).find((n) => OPERATION[n] === code)!;
        resolve(
          message.value
            .filter((i) => i.tag === TAG.BatchItem)
            .map((item) => {
              const fields = (item as Ttlv & { type: 'Structure' }).value;
              const pick = (tag: number) => fields.find((f) => f.tag === tag);
              const payload = pick(TAG.ResponsePayload);
              return {
                op: name(pick(TAG.Operation)?.value),
                status: pick(TAG.ResultStatus)!.value as number,
                reason: pick(TAG.ResultReason)?.value as number | undefined,
                message: pick(TAG.ResultMessage)?.value as string | undefined,
                payload: payload?.type === 'Structure' ? payload.value : [],
              };
            }),
        );
      }
    });
    socket.on('error', reject);
  });
}

const PERMISSION_DENIED = 0x0c;
const ITEM_NOT_FOUND = 0x01;

/**
 * The authorization matrix for KMIP: every operation × clients holding each built-in role and two
 * custom roles, a client of another domain, and a client whose certificate is revoked. The one
 * check refuses exactly what the role lacks; another domain's keys are not found; a revoked
 * certificate is refused everything.
 */
describe('KMIP authorization matrix', () => {
  let kmip: KmipServer;
  let server: TestServer;
  let token: string;
  let port: number;
  let key: string;
  const roles: Record<string, readonly string[]> = {
    Administrator: builtInRoles.Administrator.permissions,
    Operator: builtInRoles.Operator.permissions,
    Auditor: builtInRoles.Auditor.permissions,
    'Key reader': ['key:read'],
    'Key user': ['key:read', 'key:use'],
  };
  const files = (name: string) => kmip.files(name);
  const client = async (as: string, name: string, roleId: string) =>
    (await kmip.client(as, name, roleId)).client;

  const roleIds = new Map<string, string>();
  beforeAll(async () => {
    kmip = await startKmipServer();
    ({ server, token, port } = kmip);
    const list = ok(await call(server, api.role.list, { token, query: { page: 1, page_size: 50 } })).data
      .data;
    for (const [name, permissions] of Object.entries(roles)) {
      const id =
        list.find((r) => r.name === name)?.id ??
        ok(await call(server, api.role.create, { token, body: { name, permissions: [...permissions] } })).data
          .id;
      roleIds.set(name, id);
      await client(token, `m-${name.replace(/\W/g, '').toLowerCase()}`, id);
    }
  }, 90_000);
  afterAll(async () => kmip?.close());

  /** A fresh key of the root domain for each run, exportable, in use. */
  const freshKey = async () =>
    ok(
      await call(server, api.key.create, {
        token,
        body: {
          name: `matrix-${crypto.randomUUID().slice(0, 8)}`,
          algorithm: 'AES-256',
          usage_mask: 12,
          exportable: true,
        },
      }),
    ).data.id;

  for (const role of Object.keys(roles)) {
    it(`${role}: refused exactly what its role lacks`, async () => {
      key = await freshKey();
      const items = await exchange(
        port,
        files(`m-${role.replace(/\W/g, '').toLowerCase()}`),
        everyOperation(key),
      );
      expect(items).toHaveLength(Object.keys(NEEDS).length);
      const held = new Set(roles[role]);
      const verdicts: string[] = [];
      for (const item of items) {
        const need = NEEDS[item.op];
        const lacks =
          (need !== null && !held.has(need)) || (READS_FIRST.has(item.op) && !held.has('key:read'));
        const denied = item.status === 1 && item.reason === PERMISSION_DENIED;
        if (denied !== lacks)
          verdicts.push(
            `${item.op}: ${denied ? 'denied' : 'allowed'} (${item.message ?? 'ok'}), expected ${lacks ? 'deny' : 'allow'}`,
          );
      }
      expect(verdicts).toEqual([]);
      const refusals = await server.database.db
        .selectFrom('audit_log')
        .select(['username', 'target', 'source'])
        .where('action', '=', 'access.denied')
        .where('username', '=', `m-${role.replace(/\W/g, '').toLowerCase()}`)
        .execute();
      expect(refusals.length).toBe(items.filter((i) => i.reason === PERMISSION_DENIED).length);
      expect(refusals.every((r) => r.source === 'kmip')).toBe(true);
    }, 60_000);
  }

  it("keeps another domain's client from this domain's keys, and its Locate from their names", async () => {
    key = await freshKey();
    const other = await domainWithAdmin(server, token, {
      domain: 'kmip-matrix',
      username: 'kmipmx',
      password: 'Matrix-Pass-1',
    });
    const adminRole = roleIds.get('Administrator')!;
    await client(other.token, 'm-outsider', adminRole);
    const items = await exchange(port, files('m-outsider'), everyOperation(key));
    const wrong = items.filter(
      (i) => NAMES_A_KEY.has(i.op) && !(i.status === 1 && i.reason === ITEM_NOT_FOUND),
    );
    expect(wrong.map((i) => `${i.op}: ${i.message ?? 'ok'}`)).toEqual([]);
    const located = items.find((i) => i.op === 'Locate')!;
    expect(located.status).toBe(0);
    expect(located.payload.some((p) => p.tag === TAG.UniqueIdentifier && p.value === key)).toBe(false);
    const detail = ok(await call(server, api.key.detail, { token, query: { id: key } })).data;
    expect(detail.state).toBe('active');
    expect(detail.labels).toEqual({});
  }, 60_000);

  /** A new self-signed certificate's DER, made in the fixture's directory: a CA's, or a leaf's. */
  const caCertificate = async (kind: CertKind = 'CA') =>
    readFileSync(
      await selfSignedDerFile(
        kmip.dir,
        `m-${kind === 'CA' ? 'ca' : 'leaf'}-${crypto.randomUUID().slice(0, 8)}`,
        kind === 'CA',
      ),
    );

  /**
   * A root-domain certificate (an external CA, or an end-entity certificate) and secret data (a
   * password credential), made over REST.
   */
  const freshObjects = async (kind: CertKind = 'CA') => {
    const der = await caCertificate(kind);
    const cert = ok(
      await call(server, api.cert.externalUpload, {
        token,
        body: { content: der.toString('base64'), kind: kind === 'CA' ? 'ca' : 'certificate' },
      }),
    ).data.added[0]!.id;
    const secret = ok(
      await call(server, api.credential.create, {
        token,
        body: { name: `m-pw-${crypto.randomUUID().slice(0, 8)}`, type: 'password', value: 'matrix secret' },
      }),
    ).data.id;
    return { cert: `cert-${cert}`, secret: `secret-${secret}` };
  };

  const objectRoles: Record<string, readonly string[]> = {
    ...roles,
    'Cert reader': ['cert:read'],
    'Secret user': ['credential:use'],
  };
  // Leaf (end-entity) certificates go through the same checks as CA certificates.
  const kindsAndRoles = CERT_KINDS.flatMap((k) => Object.keys(objectRoles).map((r) => [k, r] as const));
  for (const [kind, role] of kindsAndRoles) {
    it(`${role}: refused exactly what its role lacks on ${kind} certificates and secret data`, async () => {
      const name = `o-${role.replace(/\W/g, '').toLowerCase()}${kind === 'CA' ? '' : '-leaf'}`;
      const roleId =
        roleIds.get(role) ??
        ok(
          await call(server, api.role.create, {
            token,
            body: { name: role, permissions: [...objectRoles[role]!] },
          }),
        ).data.id;
      roleIds.set(role, roleId);
      await client(token, name, roleId);
      const made = await freshObjects(kind);
      const items = await exchange(
        port,
        files(name),
        everyObjectOperation({ ...made, der: await caCertificate(kind), name: `${name}-made` }),
      );
      const steps = Object.keys(OBJECT_NEEDS) as ObjectStep[];
      expect(items).toHaveLength(steps.length);
      const held = new Set(objectRoles[role]);
      const verdicts = items.flatMap((item, i) => {
        const step = steps[i]!;
        const lacks = !held.has(OBJECT_NEEDS[step]);
        const denied = item.status === 1 && item.reason === PERMISSION_DENIED;
        return denied === lacks
          ? []
          : [
              `${step}: ${denied ? 'denied' : 'allowed'} (${item.message ?? 'ok'}), expected ${lacks ? 'deny' : 'allow'}`,
            ];
      });
      expect(verdicts).toEqual([]);
      // What is allowed also works: nothing else failed.
      expect(items.filter((i) => i.status !== 0 && i.reason !== PERMISSION_DENIED)).toEqual([]);
      const refusals = await server.database.db
        .selectFrom('audit_log')
        .select(['source'])
        .where('action', '=', 'access.denied')
        .where('username', '=', name)
        .execute();
      expect(refusals.length).toBe(items.filter((i) => i.reason === PERMISSION_DENIED).length);
      expect(refusals.every((r) => r.source === 'kmip')).toBe(true);
    }, 60_000);
  }

  it.each(CERT_KINDS)(
    "keeps another domain's client from this domain's %s certificates and secret data, and its Locate from them",
    async (kind) => {
      const made = await freshObjects(kind);
      const suffix = kind === 'CA' ? '' : 'leaf';
      const other = await domainWithAdmin(server, token, {
        domain: `kmip-objects${suffix}`,
        username: `kmipob${suffix}`,
        password: 'Objects-Pass-1',
      });
      await client(other.token, `o-outsider${suffix}`, roleIds.get('Administrator')!);
      const items = await exchange(
        port,
        files(`o-outsider${suffix}`),
        everyObjectOperation({ ...made, der: await caCertificate(kind), name: `outsider-made${suffix}` }),
      );
      const steps = Object.keys(OBJECT_NEEDS) as ObjectStep[];
      const named = items.filter((_, i) => /^(Get|Destroy)/.test(steps[i]!));
      expect(named).toHaveLength(8);
      expect(named.filter((i) => !(i.status === 1 && i.reason === ITEM_NOT_FOUND))).toEqual([]);
      for (const step of ['Locate certificates', 'Locate secret data'] as const) {
        const located = items[steps.indexOf(step)]!;
        expect(located.status).toBe(0);
        const ids = located.payload.filter((p) => p.tag === TAG.UniqueIdentifier).map((p) => p.value);
        expect(ids).not.toContain(made.cert);
        expect(ids).not.toContain(made.secret);
        // Its own, registered in the same message, it finds.
        expect(ids).toHaveLength(1);
      }
      // Both are still there for their own domain.
      ok(await call(server, api.cert.externalDetail, { token, query: { id: made.cert.slice(5) } }));
      ok(await call(server, api.credential.detail, { token, query: { id: made.secret.slice(7) } }));
    },
    60_000,
  );

  it('refuses everything to a client whose certificate was revoked', async () => {
    const victim = await client(token, 'm-revoked', roleIds.get('Administrator')!);
    ok(
      await call(server, api.cert.revoke, {
        token,
        body: { id: victim.certificate.id, reason: 'keyCompromise' },
      }),
    );
    const items = await exchange(port, files('m-revoked'), everyOperation(await freshKey()));
    expect(items.every((i) => i.status === 1 && i.reason === PERMISSION_DENIED)).toBe(true);
  }, 60_000);
});
