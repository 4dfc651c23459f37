import {
  createCipheriv,
  createPrivateKey,
  createPublicKey,
  randomBytes,
  randomUUID,
  X509Certificate,
} from 'node:crypto';
import { isIP } from 'node:net';
import type { ProfileSettingsInput } from '@ksp/contracts';
import {
  CLEAR_KEY,
  Code,
  DEFAULT_PROFILE,
  ProfileSettings,
  ProfileSyslogServerBase,
  profileSettingsOf,
  type AgentKey,
  type AgentKeyRule,
  type AgentSyslogServer,
  type AgentPolicy,
  type AgentProcessEntry,
  type AgentProfile,
  type AgentResourceEntry,
  type AgentSecurityRule,
  type AgentUserEntry,
  type api,
  type Input,
  type PolicyDetail,
  type PolicyElementDetail,
  type PolicyElementKind,
  type PolicyRow,
  type PolicyType,
  type ProfileRow,
  type QueryInput,
} from '@ksp/contracts';
import { z } from 'zod';
import { bumpClientConfig, type TdePolicyCatalog, type TdeUsage } from '../../platform/agent-config.js';
import { subjectOf, writeAudit } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { escapeLike, isUniqueViolation, type Db, type Executor } from '../../platform/db/database.js';
import type { TdePolicyElementTable, TdePolicyTable, TdeProfileTable } from '../../platform/db/schema.js';
import { createDomainSealer } from '../../platform/keyring/domain-sealer.js';
import type { Keyring } from '../../platform/keyring/keyring.js';
import { conflict, invalid, KspError, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import {
  allEntryArrays,
  arraysOfKind,
  checkAbsolutePath,
  checkFileName,
  checkGuardPointPath,
  checkHash,
} from './tde-policy.validate.js';

type ResourceEntry = { directory: string; file: string; include_subfolders: boolean };
type UserEntry = { uname?: string; uid?: number; gname?: string; gid?: number };
type ProcessEntry = { directory: string; file: string; signature_set_id: string | null };
type Signature = { file_name: string; hash_value: string };
type SecurityRule = Input<typeof api.tdePolicy.policyCreate>['security_rules'][number];
type KeyRule = Input<typeof api.tdePolicy.policyCreate>['key_rules'][number];
type RdmSettings = NonNullable<Input<typeof api.tdePolicy.policyCreate>['rdm']>;
type ElementContent = Omit<Input<typeof api.tdePolicy.elementCreate>, 'kind'>;
type PolicyContent = Omit<Input<typeof api.tdePolicy.policyCreate>, 'type'>;
type Settings = z.output<typeof ProfileSettingsInput>;
/** A syslog server as stored: its private key sealed under the domain KEK (never in clear). */
const StoredSyslogServer = ProfileSyslogServerBase.extend({
  sealed_privatekey: z.string().nullable().default(null),
});
/** The settings column: older rows lack the syslog and QoS settings and get their defaults. */
const StoredSettings = ProfileSettings.extend(profileSettingsOf(StoredSyslogServer).shape);
type Stored = z.output<typeof StoredSettings>;

/** Which policies an area's calls see: the TDE calls every policy, the RDM calls RDM ones only. */
export type PolicyArea = 'cte' | 'rdm';

const bool = (v: number | boolean) => Boolean(v);
const parse = <T>(text: string): T => JSON.parse(text) as T;

/**
 * Policy elements, TDE and RDM policies and client profiles (README.md). Every query is
 * limited to the caller's domain; every change raises the domain's agent configuration epoch
 * in its transaction and is audited, and so is every refusal.
 */
export function createTdePolicyService(deps: {
  db: Db;
  clock: Clock;
  usage: () => TdeUsage | undefined;
  keyring: Keyring;
}) {
  const { db, clock } = deps;
  const sealer = createDomainSealer({ keyring: deps.keyring });

  const audit = (
    trx: Executor,
    actor: Actor,
    meta: RequestMeta,
    action: string,
    target: { id: string | null; name: string },
    result: 'success' | 'failure' = 'success',
    details?: Record<string, string | number>,
  ) =>
    writeAudit(
      trx,
      {
        who: subjectOf(actor),
        action,
        target: target.name,
        result,
        ip: meta.ip,
        objectId: target.id,
        ...(details ? { details } : {}),
      },
      clock(),
    );

  /** Runs a change; a refusal is audited (its message key as the reason) and answered. */
  async function change<T>(
    actor: Actor,
    meta: RequestMeta,
    action: string,
    target: { id: string | null; name: string },
    run: () => Promise<T>,
  ): Promise<T> {
    try {
      return await run();
    } catch (err) {
      const reason = err instanceof KspError ? err.messageKey : 'internal error';
      // Not found: the name the caller sent is no object of its domain (a guess at another
      // domain's name stays out of this domain's log); the id, if any, is kept.
      const missing = err instanceof KspError && err.code === Code.NOT_FOUND;
      await audit(db, actor, meta, action, missing ? { ...target, name: '' } : target, 'failure', { reason });
      throw err;
    }
  }

  // ---- references -------------------------------------------------------------------------

  async function setRefs(
    trx: Executor,
    domainId: string,
    fromKind: 'policy' | 'element' | 'profile',
    fromId: string,
    elementIds: Iterable<string>,
  ) {
    await trx.deleteFrom('tde_element_ref').where('from_id', '=', fromId).execute();
    const ids = [...new Set(elementIds)];
    if (ids.length)
      await trx
        .insertInto('tde_element_ref')
        .values(
          ids.map((element_id) => ({
            domain_id: domainId,
            from_kind: fromKind,
            from_id: fromId,
            element_id,
          })),
        )
        .execute();
  }

  /** What refers to each of `ids`: policies, sets and profiles, by name. */
  async function usersOf(q: Executor, ids: string[]) {
    const out = new Map<string, { kind: 'policy' | 'element' | 'profile'; id: string; name: string }[]>();
    if (!ids.length) return out;
    const refs = await q
      .selectFrom('tde_element_ref')
      .leftJoin('tde_policy', 'tde_policy.id', 'tde_element_ref.from_id')
      .leftJoin('tde_policy_element', 'tde_policy_element.id', 'tde_element_ref.from_id')
      .leftJoin('tde_profile', 'tde_profile.id', 'tde_element_ref.from_id')
      .select([
        'tde_element_ref.element_id',
        'tde_element_ref.from_kind',
        'tde_element_ref.from_id',
        'tde_policy.name as policy_name',
        'tde_policy_element.name as element_name',
        'tde_profile.name as profile_name',
      ])
      .where('tde_element_ref.element_id', 'in', ids)
      .orderBy('tde_element_ref.from_kind')
      .execute();
    for (const r of refs) {
      const list = out.get(r.element_id) ?? [];
      list.push({
        kind: r.from_kind as 'policy' | 'element' | 'profile',
        id: r.from_id,
        name: r.policy_name ?? r.element_name ?? r.profile_name ?? '',
      });
      out.set(r.element_id, list);
    }
    return out;
  }

  /** The domain's sets of the given ids, by id. */
  async function elementsById(q: Executor, domainId: string, ids: Iterable<string>) {
    const list = [...new Set(ids)];
    const rows = list.length
      ? await q
          .selectFrom('tde_policy_element')
          .selectAll()
          .where('domain_id', '=', domainId)
          .where('id', 'in', list)
          .execute()
      : [];
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Checks that `id` is a set of `kind` in the domain; answers it. */
  function requireSet(
    sets: Map<string, TdePolicyElementTable>,
    field: string,
    kind: PolicyElementKind,
    id: string,
  ): TdePolicyElementTable {
    const set = sets.get(id);
    if (!set || set.kind !== kind) throw invalid('tdePolicy.setNotFound', { field, kind, id });
    return set;
  }

  // ---- elements ---------------------------------------------------------------------------

  /** The entries of `kind` checked and normalised, the others refused; answers what to store. */
  async function checkEntries(q: Executor, domainId: string, kind: PolicyElementKind, body: ElementContent) {
    for (const field of allEntryArrays)
      if (!arraysOfKind[kind].includes(field) && body[field].length)
        throw invalid('tdePolicy.entriesOfKind', { field, kind });
    const refs: string[] = [];
    let entries: unknown[] = [];
    let sourceList: string[] = [];
    if (kind === 'resource')
      entries = body.resources.map((e, i): ResourceEntry => ({
        directory: checkGuardPointPath(`resources[${i}].directory`, e.directory),
        file: checkFileName(`resources[${i}].file`, e.file),
        include_subfolders: e.include_subfolders,
      }));
    if (kind === 'user')
      entries = body.users.map((e, i): UserEntry => {
        const entry: UserEntry = {};
        if (e.uname !== undefined) entry.uname = e.uname;
        if (e.uid !== undefined) entry.uid = e.uid;
        if (e.gname !== undefined) entry.gname = e.gname;
        if (e.gid !== undefined) entry.gid = e.gid;
        if (!Object.keys(entry).length) throw invalid('tdePolicy.userEmpty', { field: `users[${i}]` });
        return entry;
      });
    if (kind === 'process') {
      const sets = await elementsById(
        q,
        domainId,
        body.processes.flatMap((e) => (e.signature_set_id ? [e.signature_set_id] : [])),
      );
      entries = body.processes.map((e, i): ProcessEntry => {
        if (!e.directory && !e.file) throw invalid('tdePolicy.processEmpty', { field: `processes[${i}]` });
        if (e.signature_set_id) {
          requireSet(sets, `processes[${i}].signature_set_id`, 'signature', e.signature_set_id);
          refs.push(e.signature_set_id);
        }
        return {
          directory: e.directory ? checkAbsolutePath(`processes[${i}].directory`, e.directory) : '',
          file: checkFileName(`processes[${i}].file`, e.file),
          signature_set_id: e.signature_set_id,
        };
      });
    }
    if (kind === 'signature') {
      sourceList = body.source_list.map((p, i) => checkAbsolutePath(`source_list[${i}]`, p));
      entries = body.signatures.map((s, i): Signature => ({
        file_name: s.file_name,
        hash_value: checkHash(`signatures[${i}].hash_value`, s.hash_value),
      }));
    }
    return { entries, sourceList, refs };
  }

  const entryCount = (row: TdePolicyElementTable) => parse<unknown[]>(row.entries).length;

  async function elementView(q: Executor, row: TdePolicyElementTable): Promise<PolicyElementDetail> {
    const users = (await usersOf(q, [row.id])).get(row.id) ?? [];
    const entries = parse<unknown[]>(row.entries);
    let processes: PolicyElementDetail['processes'] = [];
    if (row.kind === 'process') {
      const list = entries as ProcessEntry[];
      const sets = await elementsById(
        q,
        row.domain_id,
        list.flatMap((e) => (e.signature_set_id ? [e.signature_set_id] : [])),
      );
      processes = list.map((e) => ({
        ...e,
        signature_set_name: e.signature_set_id ? (sets.get(e.signature_set_id)?.name ?? null) : null,
      }));
    }
    return {
      id: row.id,
      kind: row.kind as PolicyElementKind,
      name: row.name,
      description: row.description,
      entry_count: entries.length,
      used_by: users,
      created_at: row.created_at,
      updated_at: row.updated_at,
      resources: row.kind === 'resource' ? (entries as ResourceEntry[]) : [],
      users: row.kind === 'user' ? (entries as UserEntry[]) : [],
      processes,
      source_list: parse<string[]>(row.source_list),
      signatures: row.kind === 'signature' ? (entries as Signature[]) : [],
    };
  }

  async function findElement(q: Executor, domainId: string, id: string) {
    const row = await q
      .selectFrom('tde_policy_element')
      .selectAll()
      .where('id', '=', id)
      .where('domain_id', '=', domainId)
      .executeTakeFirst();
    if (!row) throw notFound('tdePolicy.elementNotFound', { id });
    return row;
  }

  const elementTaken = (kind: string, name: string) => (err: unknown) => {
    throw isUniqueViolation(err) ? conflict('tdePolicy.elementNameTaken', { kind, name }) : err;
  };

  // ---- keys -------------------------------------------------------------------------------

  interface Cte {
    versioned: boolean;
    encryption_mode: string;
  }
  const tdeUsable = (k: { algorithm: string; cte: string | null; state: string }) => {
    if (k.algorithm !== 'AES-256' || !k.cte || k.state.startsWith('destroyed')) return false;
    const cte = parse<Cte>(k.cte);
    return !cte.versioned && (cte.encryption_mode === 'CBC' || cte.encryption_mode === 'CBC_CS1');
  };

  // ---- policies ---------------------------------------------------------------------------

  /** The content checked against the domain's sets and keys; answers what to store and refer to. */
  async function checkPolicy(q: Executor, domainId: string, type: PolicyType, body: PolicyContent) {
    if (type === 'rdm') {
      if (!body.rdm) throw invalid('tdePolicy.rdmRequired');
      if (body.key_rules.length) throw invalid('tdePolicy.rdmNoKeyRules');
    } else if (body.rdm) throw invalid('tdePolicy.rdmOnly');
    const ids = [
      ...body.security_rules.flatMap((r) =>
        [r.user_set_id, r.process_set_id, r.resource_set_id].filter((x): x is string => Boolean(x)),
      ),
      ...body.key_rules.flatMap((r) => (r.resource_set_id ? [r.resource_set_id] : [])),
      ...(body.rdm?.trusted_process_set_ids ?? []),
    ];
    const sets = await elementsById(q, domainId, ids);
    const securityRules: SecurityRule[] = body.security_rules.map((r, i) => {
      const at = `security_rules[${i}]`;
      if (r.user_set_id) requireSet(sets, `${at}.user_set_id`, 'user', r.user_set_id);
      if (r.process_set_id) requireSet(sets, `${at}.process_set_id`, 'process', r.process_set_id);
      if (r.resource_set_id) requireSet(sets, `${at}.resource_set_id`, 'resource', r.resource_set_id);
      if (r.effects.includes('permit') && r.effects.includes('deny'))
        throw invalid('tdePolicy.effectsConflict', { field: `${at}.effects` });
      if (type === 'rdm' && r.effects.includes('applykey'))
        throw invalid('tdePolicy.rdmNoApplyKey', { field: `${at}.effects` });
      return {
        ...r,
        actions: [...new Set(r.actions)],
        effects: [...new Set(r.effects)],
      };
    });
    const keyIds = body.key_rules.map((r) => r.key_id).filter((k) => k !== CLEAR_KEY);
    const keys = keyIds.length
      ? await q
          .selectFrom('kms_key')
          .select(['id', 'name', 'algorithm', 'cte', 'state'])
          .where('domain_id', '=', domainId)
          .where('id', 'in', keyIds)
          .execute()
      : [];
    const keyRules: KeyRule[] = body.key_rules.map((r, i) => {
      const at = `key_rules[${i}]`;
      if (r.resource_set_id) requireSet(sets, `${at}.resource_set_id`, 'resource', r.resource_set_id);
      if (r.key_id !== CLEAR_KEY) {
        const key = keys.find((k) => k.id === r.key_id);
        if (!key) throw invalid('tdePolicy.keyNotFound', { field: `${at}.key_id`, id: r.key_id });
        if (!tdeUsable(key)) throw invalid('tdePolicy.keyNotTde', { field: `${at}.key_id`, name: key.name });
      }
      return r;
    });
    let rdm: RdmSettings | null = null;
    if (body.rdm) {
      body.rdm.trusted_process_set_ids.forEach((id, i) =>
        requireSet(sets, `rdm.trusted_process_set_ids[${i}]`, 'process', id),
      );
      rdm = { ...body.rdm, trusted_process_set_ids: [...new Set(body.rdm.trusted_process_set_ids)] };
    }
    return { securityRules, keyRules, rdm, refs: ids };
  }

  const policyRow = (r: TdePolicyTable): PolicyRow => ({
    id: r.id,
    name: r.name,
    description: r.description,
    type: r.type as PolicyType,
    learn_mode: bool(r.learn_mode),
    restrict_update: bool(r.restrict_update),
    revision: Number(r.revision),
    security_rule_count: parse<unknown[]>(r.security_rules).length,
    key_rule_count: parse<unknown[]>(r.key_rules).length,
    created_at: r.created_at,
    updated_at: r.updated_at,
  });

  const guardPoints = async (q: Executor, domainId: string, policyId: string) =>
    (await deps.usage()?.guardPointsUsingPolicy(q, domainId, policyId)) ?? 0;

  /** A policy's stored rules and RDM settings, and every policy element they name. */
  async function parsedPolicy(q: Executor, r: TdePolicyTable) {
    const securityRules = parse<SecurityRule[]>(r.security_rules);
    const keyRules = parse<KeyRule[]>(r.key_rules);
    const rdm = r.rdm ? parse<RdmSettings>(r.rdm) : null;
    const sets = await elementsById(
      q,
      r.domain_id,
      [
        ...securityRules.flatMap((x) => [x.user_set_id, x.process_set_id, x.resource_set_id]),
        ...keyRules.map((x) => x.resource_set_id),
        ...(rdm?.trusted_process_set_ids ?? []),
      ].filter((x): x is string => Boolean(x)),
    );
    return { securityRules, keyRules, rdm, sets };
  }

  async function policyView(q: Executor, r: TdePolicyTable): Promise<PolicyDetail> {
    const { securityRules, keyRules, rdm, sets } = await parsedPolicy(q, r);
    const ref = (id: string | null) => {
      const s = id ? sets.get(id) : undefined;
      return s ? { id: s.id, name: s.name } : null;
    };
    const keyIds = keyRules.map((k) => k.key_id).filter((k) => k !== CLEAR_KEY);
    const keys = keyIds.length
      ? await q
          .selectFrom('kms_key')
          .select(['id', 'name'])
          .where('domain_id', '=', r.domain_id)
          .where('id', 'in', keyIds)
          .execute()
      : [];
    return {
      ...policyRow(r),
      security_rules: securityRules.map((x, i) => ({
        ...x,
        order: i + 1,
        user_set: ref(x.user_set_id),
        process_set: ref(x.process_set_id),
        resource_set: ref(x.resource_set_id),
      })),
      key_rules: keyRules.map((x, i) => ({
        ...x,
        order: i + 1,
        resource_set: ref(x.resource_set_id),
        key_name: x.key_id === CLEAR_KEY ? null : (keys.find((k) => k.id === x.key_id)?.name ?? null),
      })),
      rdm: rdm
        ? {
            ...rdm,
            trusted_process_sets: rdm.trusted_process_set_ids.flatMap((id) => {
              const s = ref(id);
              return s ? [s] : [];
            }),
          }
        : null,
      guard_points: await guardPoints(q, r.domain_id, r.id),
    };
  }

  async function findPolicy(q: Executor, domainId: string, id: string, area: PolicyArea) {
    const row = await q
      .selectFrom('tde_policy')
      .selectAll()
      .where('id', '=', id)
      .where('domain_id', '=', domainId)
      .$if(area === 'rdm', (qb) => qb.where('type', '=', 'rdm'))
      .executeTakeFirst();
    if (!row) throw notFound('tdePolicy.policyNotFound', { id });
    return row;
  }

  const policyTaken = (type: string, name: string) => (err: unknown) => {
    throw isUniqueViolation(err) ? conflict('tdePolicy.policyNameTaken', { type, name }) : err;
  };

  // ---- compile ----------------------------------------------------------------------------

  /** The processes of process sets, each entry's hashes from its signature set. */
  async function inlineProcesses(q: Executor, domainId: string, sets: TdePolicyElementTable[]) {
    const entriesOf = new Map(sets.map((s) => [s.id, parse<ProcessEntry[]>(s.entries)]));
    const sigIds = [...entriesOf.values()].flatMap((l) =>
      l.flatMap((e) => (e.signature_set_id ? [e.signature_set_id] : [])),
    );
    const sigs = await elementsById(q, domainId, sigIds);
    return (setId: string): AgentProcessEntry[] =>
      (entriesOf.get(setId) ?? []).flatMap((e) => {
        const out: AgentProcessEntry = {};
        if (e.directory) out.directory = e.directory;
        if (e.file) out.file = e.file;
        if (e.signature_set_id) {
          const hashes = [
            ...new Set(
              parse<Signature[]>(sigs.get(e.signature_set_id)?.entries ?? '[]').map((s) => s.hash_value),
            ),
          ];
          // No signature: the entry allows no executable at all (never "any").
          if (!hashes.length) return [];
          out.sha256 = hashes;
        }
        return [out];
      });
  }

  const resourceEntries = (s: TdePolicyElementTable | undefined): AgentResourceEntry[] =>
    parse<ResourceEntry[]>(s?.entries ?? '[]').map((e) => ({
      directory: e.directory,
      ...(e.file ? { file: e.file } : {}),
      include_subfolders: e.include_subfolders,
    }));

  async function compilePolicy(q: Executor, r: TdePolicyTable): Promise<AgentPolicy> {
    const { securityRules, keyRules, rdm, sets } = await parsedPolicy(q, r);
    const processes = await inlineProcesses(
      q,
      r.domain_id,
      [...sets.values()].filter((s) => s.kind === 'process'),
    );
    const security_rules = securityRules.map((x, i): AgentSecurityRule => {
      const rule: AgentSecurityRule = { order: i + 1, actions: x.actions, effects: x.effects };
      if (x.user_set_id) {
        rule.users = parse<AgentUserEntry[]>(sets.get(x.user_set_id)?.entries ?? '[]');
        rule.exclude_users = x.exclude_user_set;
      }
      if (x.process_set_id) {
        rule.processes = processes(x.process_set_id);
        rule.exclude_processes = x.exclude_process_set;
      }
      if (x.resource_set_id) {
        rule.resources = resourceEntries(sets.get(x.resource_set_id));
        rule.exclude_resources = x.exclude_resource_set;
      }
      return rule;
    });
    const key_rules = keyRules.map((x, i): AgentKeyRule => ({
      order: i + 1,
      ...(x.resource_set_id ? { resources: resourceEntries(sets.get(x.resource_set_id)) } : {}),
      key_id: x.key_id === CLEAR_KEY ? null : x.key_id,
    }));
    return {
      id: r.id,
      name: r.name,
      type: r.type as PolicyType,
      learn_mode: bool(r.learn_mode),
      revision: Number(r.revision),
      security_rules,
      key_rules,
      ...(rdm
        ? {
            rdm: {
              mode: rdm.mode,
              trusted_processes: rdm.trusted_process_set_ids.flatMap((id) => processes(id)),
              threshold: rdm.threshold,
            },
          }
        : {}),
    };
  }

  // ---- profiles ---------------------------------------------------------------------------

  /** The domain's default profile, made with the default settings when first needed. */
  async function ensureDefault(q: Executor, domainId: string) {
    const now = clock().toISOString();
    await q
      .insertInto('tde_profile')
      .values({
        id: randomUUID(),
        domain_id: domainId,
        name: DEFAULT_PROFILE,
        description: '',
        settings: JSON.stringify(ProfileSettings.parse({})),
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['domain_id', 'name']).doNothing())
      .execute();
  }

  async function findProfile(q: Executor, domainId: string, name: string) {
    if (name === DEFAULT_PROFILE) await ensureDefault(q, domainId);
    const row = await q
      .selectFrom('tde_profile')
      .selectAll()
      .where('domain_id', '=', domainId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (!row) throw notFound('tdePolicy.profileNotFound', { name });
    return row;
  }

  /** The additional data binding a sealed syslog key to its profile and place. */
  const keyOwner = (profileId: string, index: number) =>
    `ksp/secret/tde-profile/${profileId}/syslog/${index}`;

  /**
   * The private key of each syslog server, in clear, for checking and sealing: the one sent, or
   * (omitted) the one stored for the server of the same name and port ("" clears it).
   */
  async function resolveKeys(
    settings: Settings,
    domainId: string,
    old?: { id: string; settings: Stored },
  ): Promise<(string | null)[]> {
    const keys: (string | null)[] = [];
    for (const server of settings.syslog_settings.servers) {
      // Only a TLS server with a client certificate keeps its stored key.
      if (server.privatekey !== undefined || server.protocol !== 'TLS' || !server.certificate) {
        keys.push(server.privatekey || null);
        continue;
      }
      const servers = old?.settings.syslog_settings.servers ?? [];
      const index = servers.findIndex(
        (s) => s.name === server.name && s.port === server.port && s.sealed_privatekey,
      );
      const sealed = servers[index]?.sealed_privatekey;
      keys.push(
        old && sealed
          ? (await sealer.open(db, domainId, keyOwner(old.id, index), sealed)).toString('utf8')
          : null,
      );
    }
    return keys;
  }

  const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
  const pemCertificates = (text: string) =>
    text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

  function checkCertificates(field: string, text: string) {
    const blocks = pemCertificates(text);
    if (blocks.length === 0)
      throw invalid('tdePolicy.syslogBadCert', { field, reason: 'no BEGIN CERTIFICATE block' });
    for (const pem of blocks) {
      try {
        new X509Certificate(pem);
      } catch (err) {
        throw invalid('tdePolicy.syslogBadCert', {
          field,
          reason: err instanceof Error ? err.message.slice(0, 120) : 'unreadable',
        });
      }
    }
  }

  function checkSyslog(settings: Settings, keys: (string | null)[]) {
    const seen = new Set<string>();
    settings.syslog_settings.servers.forEach((server, i) => {
      const field = `syslog_settings.servers[${i}]`;
      if (!isIP(server.name) && !HOST.test(server.name))
        throw invalid('tdePolicy.syslogHost', { field: `${field}.name` });
      const id = `${server.name.toLowerCase()}:${server.port}`;
      if (seen.has(id))
        throw invalid('tdePolicy.syslogDuplicate', { field, name: server.name, port: server.port });
      seen.add(id);
      const key = keys[i] ?? null;
      if (server.protocol !== 'TLS') {
        if (server.cacertificate)
          throw invalid('tdePolicy.syslogTlsOnly', { field: `${field}.cacertificate` });
        if (server.certificate) throw invalid('tdePolicy.syslogTlsOnly', { field: `${field}.certificate` });
        if (key) throw invalid('tdePolicy.syslogTlsOnly', { field: `${field}.privatekey` });
        return;
      }
      if (!server.cacertificate)
        throw invalid('tdePolicy.syslogCaRequired', { field: `${field}.cacertificate` });
      checkCertificates(`${field}.cacertificate`, server.cacertificate);
      if (server.certificate && !key) throw invalid('tdePolicy.syslogPair', { field: `${field}.privatekey` });
      if (key && !server.certificate)
        throw invalid('tdePolicy.syslogPair', { field: `${field}.certificate` });
      if (server.certificate && key) {
        checkCertificates(`${field}.certificate`, server.certificate);
        try {
          const pub = createPublicKey(createPrivateKey(key)).export({ type: 'spki', format: 'der' });
          const certKey = new X509Certificate(pemCertificates(server.certificate)[0]!).publicKey.export({
            type: 'spki',
            format: 'der',
          });
          if (!pub.equals(certKey)) throw new Error('mismatch');
        } catch {
          throw invalid('tdePolicy.syslogBadKey', { field: `${field}.privatekey` });
        }
      }
    });
  }

  function checkQos(settings: Settings) {
    const q = settings.ldt_qos;
    const custom = q.ldt_qos_schedule === 'CUSTOM' || q.ldt_qos_schedule === 'CUSTOM_WITH_OVERWRITE';
    if (custom && q.qos_schedules.length === 0)
      throw invalid('tdePolicy.qosSchedulesRequired', {
        field: 'ldt_qos.qos_schedules',
        schedule: q.ldt_qos_schedule,
      });
    if (!custom && q.qos_schedules.length > 0)
      throw invalid('tdePolicy.qosSchedulesUnused', { field: 'ldt_qos.qos_schedules' });
    q.qos_schedules.forEach((w, i) => {
      if (w.start_weekday === w.end_weekday && w.start_time === w.end_time)
        throw invalid('tdePolicy.qosWindowEmpty', { field: `ldt_qos.qos_schedules[${i}]` });
    });
    if ((q.rekey_rate_mbps === null) === (q.cpu_percent === null)) throw invalid('tdePolicy.qosRateOrCpu');
  }

  async function checkProfile(q: Executor, domainId: string, settings: Settings, keys: (string | null)[]) {
    const u = settings.upload_settings;
    if (u.max_interval_s < u.min_interval_s)
      throw invalid('tdePolicy.profileIntervals', { min: u.min_interval_s });
    if (settings.rwp_process_set_id) {
      const sets = await elementsById(q, domainId, [settings.rwp_process_set_id]);
      requireSet(sets, 'rwp_process_set_id', 'process', settings.rwp_process_set_id);
    }
    checkSyslog(settings, keys);
    checkQos(settings);
  }

  /** The settings column: what was sent, the private keys sealed under the domain KEK. */
  async function storedOf(
    body: Settings,
    keys: (string | null)[],
    domainId: string,
    profileId: string,
  ): Promise<Stored> {
    const servers: Stored['syslog_settings']['servers'] = [];
    for (const [i, server] of body.syslog_settings.servers.entries()) {
      const key = keys[i] ?? null;
      servers.push({
        name: server.name,
        port: server.port,
        protocol: server.protocol,
        message_format: server.message_format,
        cacertificate: server.cacertificate,
        certificate: server.certificate,
        sealed_privatekey: key
          ? await sealer.seal(db, domainId, keyOwner(profileId, i), Buffer.from(key, 'utf8'))
          : null,
      });
    }
    return {
      logging: body.logging,
      file_settings: body.file_settings,
      upload_settings: body.upload_settings,
      duplicate_settings: body.duplicate_settings,
      cache_settings: body.cache_settings,
      connect_timeout_s: body.connect_timeout_s,
      rwp_operation: body.rwp_operation,
      rwp_process_set_id: body.rwp_process_set_id,
      syslog_settings: { ...body.syslog_settings, servers },
      ldt_qos: body.ldt_qos,
    };
  }

  const storedSettings = (r: TdeProfileTable): Stored => StoredSettings.parse(parse<unknown>(r.settings));

  /**
   * The syslog servers for an agent; a private key is opened and sealed to the agent with
   * `wrap` (contracts/agent.ts `AgentSealedSecret`), and left out without it.
   */
  async function agentSyslogServers(
    q: Executor,
    r: TdeProfileTable,
    s: Stored,
    wrap?: (secretId: string, material: Buffer) => AgentKey | undefined,
  ): Promise<AgentSyslogServer[]> {
    const out: AgentSyslogServer[] = [];
    for (const [i, server] of s.syslog_settings.servers.entries()) {
      const entry: AgentSyslogServer = {
        name: server.name,
        port: server.port,
        protocol: server.protocol,
        message_format: server.message_format,
        ...(server.cacertificate ? { cacertificate: server.cacertificate } : {}),
        ...(server.certificate ? { certificate: server.certificate } : {}),
      };
      if (server.sealed_privatekey && wrap) {
        const cek = randomBytes(32);
        try {
          const secretId = `syslog:${i}`;
          const key = await sealer.open(q, r.domain_id, keyOwner(r.id, i), server.sealed_privatekey);
          const wrapped = wrap(secretId, cek);
          if (wrapped) {
            const iv = randomBytes(12);
            const cipher = createCipheriv('aes-256-gcm', cek, iv);
            cipher.setAAD(Buffer.from(secretId, 'utf8'));
            const data = Buffer.concat([cipher.update(key), cipher.final()]);
            key.fill(0);
            entry.privatekey = {
              cek: wrapped,
              iv: iv.toString('base64'),
              tag: cipher.getAuthTag().toString('base64'),
              data: data.toString('base64'),
            };
          }
        } finally {
          cek.fill(0);
        }
      }
      out.push(entry);
    }
    return out;
  }

  const profileUsers = async (q: Executor, domainId: string, name: string) =>
    (await deps.usage()?.usersOfProfile(q, domainId, name)) ?? 0;

  async function profileView(q: Executor, r: TdeProfileTable): Promise<ProfileRow> {
    const stored = storedSettings(r);
    const settings = {
      ...stored,
      syslog_settings: {
        ...stored.syslog_settings,
        servers: stored.syslog_settings.servers.map(({ sealed_privatekey, ...server }) => ({
          ...server,
          has_private_key: sealed_privatekey !== null,
        })),
      },
    };
    const set = settings.rwp_process_set_id
      ? (await elementsById(q, r.domain_id, [settings.rwp_process_set_id])).get(settings.rwp_process_set_id)
      : undefined;
    return {
      ...settings,
      id: r.id,
      name: r.name,
      description: r.description,
      is_default: r.name === DEFAULT_PROFILE,
      rwp_process_set_name: set?.name ?? null,
      users: await profileUsers(q, r.domain_id, r.name),
      created_at: r.created_at,
      updated_at: r.updated_at,
    };
  }

  // ---- the catalog other modules use --------------------------------------------------------

  const catalog: TdePolicyCatalog = {
    async policiesUsingKeys(q, domainId, keyIds) {
      if (keyIds.length === 0) return [];
      // Key rules are JSON: the text search narrows, the parse decides.
      let query = q.selectFrom('tde_policy').select(['name', 'key_rules']).where('domain_id', '=', domainId);
      query = query.where((eb) => eb.or(keyIds.map((id) => eb('key_rules', 'like', `%${escapeLike(id)}%`))));
      const out: { keyId: string; policy: string }[] = [];
      for (const row of await query.orderBy('name').execute())
        for (const rule of parse<KeyRule[]>(row.key_rules))
          if (
            keyIds.includes(rule.key_id) &&
            !out.some((o) => o.keyId === rule.key_id && o.policy === row.name)
          )
            out.push({ keyId: rule.key_id, policy: row.name });
      return out;
    },
    async describe(q, domainId, policyId) {
      const r = await q
        .selectFrom('tde_policy')
        .select(['id', 'name', 'type'])
        .where('id', '=', policyId)
        .where('domain_id', '=', domainId)
        .executeTakeFirst();
      return r ? { id: r.id, name: r.name, type: r.type as PolicyType } : undefined;
    },
    async compile(q, domainId, policyId) {
      const r = await q
        .selectFrom('tde_policy')
        .selectAll()
        .where('id', '=', policyId)
        .where('domain_id', '=', domainId)
        .executeTakeFirst();
      return r ? compilePolicy(q, r) : undefined;
    },
    async profile(q, domainId, name, wrap) {
      const wanted = name ?? DEFAULT_PROFILE;
      if (wanted === DEFAULT_PROFILE) await ensureDefault(q, domainId);
      const r = await q
        .selectFrom('tde_profile')
        .selectAll()
        .where('domain_id', '=', domainId)
        .where('name', '=', wanted)
        .executeTakeFirst();
      if (!r) return null;
      const s = storedSettings(r);
      let trusted: AgentProcessEntry[] = [];
      if (s.rwp_process_set_id) {
        const sets = await elementsById(q, domainId, [s.rwp_process_set_id]);
        const processes = await inlineProcesses(q, domainId, [...sets.values()]);
        trusted = processes(s.rwp_process_set_id);
      }
      const profile: AgentProfile = {
        name: r.name,
        log_threshold: s.logging.threshold,
        upload_enabled: s.logging.upload_enabled,
        upload_max_interval_s: s.upload_settings.max_interval_s,
        rwp_operation: s.rwp_operation,
        rwp_trusted_processes: trusted,
        syslog: {
          enabled: s.logging.syslog_enabled,
          local: s.syslog_settings.local,
          threshold: s.syslog_settings.syslog_threshold,
          servers: await agentSyslogServers(q, r, s, wrap),
        },
        ldt_qos: {
          schedule: s.ldt_qos.ldt_qos_schedule,
          windows: s.ldt_qos.qos_schedules,
          rekey_rate_mbps: s.ldt_qos.rekey_rate_mbps,
          cpu_percent: s.ldt_qos.cpu_percent,
          status_check_rate_s: s.ldt_qos.ldt_qos_status_check_rate,
        },
      };
      return profile;
    },
  };

  return {
    catalog,

    // ---- elements ----
    async elementList(actor: Actor, query: QueryInput<typeof api.tdePolicy.elementList>) {
      const base = db
        .selectFrom('tde_policy_element')
        .where('domain_id', '=', actor.domainId)
        .$if(Boolean(query.kind), (qb) => qb.where('kind', '=', query.kind ?? ''))
        .$if(Boolean(query.name), (qb) => qb.where('name', 'like', `%${escapeLike(query.name ?? '')}%`));
      const total = await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      const rows = await base
        .selectAll()
        .orderBy('kind')
        .orderBy('name')
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
        .execute();
      const users = await usersOf(
        db,
        rows.map((r) => r.id),
      );
      return {
        data: rows.map((r) => ({
          id: r.id,
          kind: r.kind as PolicyElementKind,
          name: r.name,
          description: r.description,
          entry_count: entryCount(r),
          used_by: users.get(r.id) ?? [],
          created_at: r.created_at,
          updated_at: r.updated_at,
        })),
        total: Number(total?.n ?? 0),
      };
    },

    async elementDetail(actor: Actor, id: string) {
      return elementView(db, await findElement(db, actor.domainId, id));
    },

    async elementCreate(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdePolicy.elementCreate>) {
      return change(actor, meta, 'policyElement.create', { id: null, name: body.name }, async () => {
        const checked = await checkEntries(db, actor.domainId, body.kind, body);
        const now = clock();
        const row: TdePolicyElementTable = {
          id: randomUUID(),
          domain_id: actor.domainId,
          kind: body.kind,
          name: body.name,
          description: body.description,
          entries: JSON.stringify(checked.entries),
          source_list: JSON.stringify(checked.sourceList),
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        };
        return db
          .transaction()
          .execute(async (trx) => {
            await trx.insertInto('tde_policy_element').values(row).execute();
            await setRefs(trx, actor.domainId, 'element', row.id, checked.refs);
            await bumpClientConfig(trx, actor.domainId, now);
            await audit(trx, actor, meta, 'policyElement.create', row, 'success', {
              kind: row.kind,
              entries: checked.entries.length,
            });
            return elementView(trx, row);
          })
          .catch(elementTaken(body.kind, body.name));
      });
    },

    async elementUpdate(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdePolicy.elementUpdate>) {
      return change(actor, meta, 'policyElement.update', { id: body.id, name: body.name }, async () => {
        const old = await findElement(db, actor.domainId, body.id);
        const kind = old.kind as PolicyElementKind;
        const checked = await checkEntries(db, actor.domainId, kind, body);
        const now = clock();
        return db
          .transaction()
          .execute(async (trx) => {
            await trx
              .updateTable('tde_policy_element')
              .set({
                name: body.name,
                description: body.description,
                entries: JSON.stringify(checked.entries),
                source_list: JSON.stringify(checked.sourceList),
                updated_at: now.toISOString(),
              })
              .where('id', '=', old.id)
              .where('domain_id', '=', actor.domainId)
              .execute();
            await setRefs(trx, actor.domainId, 'element', old.id, checked.refs);
            await bumpClientConfig(trx, actor.domainId, now);
            await audit(
              trx,
              actor,
              meta,
              'policyElement.update',
              { id: old.id, name: body.name },
              'success',
              {
                kind,
                entries: checked.entries.length,
                ...(old.name !== body.name ? { renamed_from: old.name } : {}),
              },
            );
            return elementView(trx, await findElement(trx, actor.domainId, old.id));
          })
          .catch(elementTaken(kind, body.name));
      });
    },

    async elementDelete(actor: Actor, meta: RequestMeta, id: string) {
      return change(actor, meta, 'policyElement.delete', { id, name: id }, async () => {
        const row = await findElement(db, actor.domainId, id);
        return db.transaction().execute(async (trx) => {
          const users = (await usersOf(trx, [row.id])).get(row.id) ?? [];
          if (users.length)
            throw conflict('tdePolicy.elementInUse', {
              kind: row.kind,
              name: row.name,
              users: users.map((u) => `${u.kind} ${u.name}`).join(', '),
            });
          await trx.deleteFrom('tde_element_ref').where('from_id', '=', row.id).execute();
          await trx.deleteFrom('tde_policy_element').where('id', '=', row.id).execute();
          const now = clock();
          await bumpClientConfig(trx, actor.domainId, now);
          await audit(trx, actor, meta, 'policyElement.delete', row, 'success', { kind: row.kind });
          return { deleted: 1 };
        });
      });
    },

    // ---- policies ----
    async policyList(
      actor: Actor,
      area: PolicyArea,
      query: { page: number; page_size: number; name?: string | undefined; type?: PolicyType | undefined },
    ) {
      const type = area === 'rdm' ? 'rdm' : query.type;
      const base = db
        .selectFrom('tde_policy')
        .where('domain_id', '=', actor.domainId)
        .$if(Boolean(type), (qb) => qb.where('type', '=', type ?? ''))
        .$if(Boolean(query.name), (qb) => qb.where('name', 'like', `%${escapeLike(query.name ?? '')}%`));
      const total = await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      const rows = await base
        .selectAll()
        .orderBy('name')
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
        .execute();
      return { data: rows.map(policyRow), total: Number(total?.n ?? 0) };
    },

    async policyDetail(actor: Actor, area: PolicyArea, id: string) {
      return policyView(db, await findPolicy(db, actor.domainId, id, area));
    },

    async policyCreate(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdePolicy.policyCreate>) {
      return change(actor, meta, 'policy.create', { id: null, name: body.name }, async () => {
        const checked = await checkPolicy(db, actor.domainId, body.type, body);
        const now = clock();
        const row: TdePolicyTable = {
          id: randomUUID(),
          domain_id: actor.domainId,
          type: body.type,
          name: body.name,
          description: body.description,
          learn_mode: body.learn_mode ? 1 : 0,
          restrict_update: body.restrict_update ? 1 : 0,
          revision: 1,
          security_rules: JSON.stringify(checked.securityRules),
          key_rules: JSON.stringify(checked.keyRules),
          rdm: checked.rdm ? JSON.stringify(checked.rdm) : null,
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        };
        return db
          .transaction()
          .execute(async (trx) => {
            await trx.insertInto('tde_policy').values(row).execute();
            await setRefs(trx, actor.domainId, 'policy', row.id, checked.refs);
            await bumpClientConfig(trx, actor.domainId, now);
            await audit(trx, actor, meta, 'policy.create', row, 'success', {
              type: row.type,
              security_rules: checked.securityRules.length,
              key_rules: checked.keyRules.length,
            });
            return policyView(trx, row);
          })
          .catch(policyTaken(body.type, body.name));
      });
    },

    async policyUpdate(
      actor: Actor,
      meta: RequestMeta,
      area: PolicyArea,
      body: Input<typeof api.tdePolicy.policyUpdate>,
    ) {
      return change(actor, meta, 'policy.update', { id: body.id, name: body.name }, async () => {
        const old = await findPolicy(db, actor.domainId, body.id, area);
        const type = old.type as PolicyType;
        if (body.type !== undefined && body.type !== type)
          throw stateForbids('tdePolicy.typeLocked', { name: old.name, type });
        if (old.restrict_update) {
          const count = await guardPoints(db, actor.domainId, old.id);
          if (count > 0) throw stateForbids('tdePolicy.restricted', { name: old.name, count });
        }
        const checked = await checkPolicy(db, actor.domainId, type, body);
        const now = clock();
        return db
          .transaction()
          .execute(async (trx) => {
            await trx
              .updateTable('tde_policy')
              .set((eb) => ({
                name: body.name,
                description: body.description,
                learn_mode: body.learn_mode ? 1 : 0,
                restrict_update: body.restrict_update ? 1 : 0,
                revision: eb('revision', '+', 1),
                security_rules: JSON.stringify(checked.securityRules),
                key_rules: JSON.stringify(checked.keyRules),
                rdm: checked.rdm ? JSON.stringify(checked.rdm) : null,
                updated_at: now.toISOString(),
              }))
              .where('id', '=', old.id)
              .where('domain_id', '=', actor.domainId)
              .execute();
            await setRefs(trx, actor.domainId, 'policy', old.id, checked.refs);
            await bumpClientConfig(trx, actor.domainId, now);
            const row = await findPolicy(trx, actor.domainId, old.id, area);
            await audit(trx, actor, meta, 'policy.update', row, 'success', {
              type,
              revision: Number(row.revision),
              security_rules: checked.securityRules.length,
              key_rules: checked.keyRules.length,
              ...(old.name !== body.name ? { renamed_from: old.name } : {}),
            });
            return policyView(trx, row);
          })
          .catch(policyTaken(type, body.name));
      });
    },

    async policyDelete(actor: Actor, meta: RequestMeta, area: PolicyArea, id: string) {
      return change(actor, meta, 'policy.delete', { id, name: id }, async () => {
        const row = await findPolicy(db, actor.domainId, id, area);
        return db.transaction().execute(async (trx) => {
          const count = await guardPoints(trx, actor.domainId, row.id);
          if (count > 0) throw conflict('tdePolicy.policyInUse', { name: row.name, count });
          await trx.deleteFrom('tde_element_ref').where('from_id', '=', row.id).execute();
          await trx.deleteFrom('tde_policy').where('id', '=', row.id).execute();
          await bumpClientConfig(trx, actor.domainId, clock());
          await audit(trx, actor, meta, 'policy.delete', row, 'success', { type: row.type });
          return { deleted: 1 };
        });
      });
    },

    async keyOptions(actor: Actor) {
      const keys = await db
        .selectFrom('kms_key')
        .select(['id', 'name', 'algorithm', 'cte', 'state'])
        .where('domain_id', '=', actor.domainId)
        .where('algorithm', '=', 'AES-256')
        .where('cte', 'is not', null)
        .orderBy('name')
        .limit(1000)
        .execute();
      return keys.filter(tdeUsable).map((k) => {
        const cte = parse<Cte>(k.cte ?? '{}');
        return { id: k.id, name: k.name, encryption_mode: cte.encryption_mode, versioned: cte.versioned };
      });
    },

    // ---- profiles ----
    async profileList(actor: Actor, query: QueryInput<typeof api.tdePolicy.profileList>) {
      await ensureDefault(db, actor.domainId);
      const base = db
        .selectFrom('tde_profile')
        .where('domain_id', '=', actor.domainId)
        .$if(Boolean(query.name), (qb) => qb.where('name', 'like', `%${escapeLike(query.name ?? '')}%`));
      const total = await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      const rows = await base
        .selectAll()
        .orderBy((eb) => eb.case().when('name', '=', DEFAULT_PROFILE).then(0).else(1).end())
        .orderBy('name')
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
        .execute();
      const data: ProfileRow[] = [];
      for (const r of rows) data.push(await profileView(db, r));
      return { data, total: Number(total?.n ?? 0) };
    },

    async profileDetail(actor: Actor, name: string) {
      return profileView(db, await findProfile(db, actor.domainId, name));
    },

    async profileCreate(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdePolicy.profileCreate>) {
      return change(actor, meta, 'profile.create', { id: null, name: body.name }, async () => {
        await ensureDefault(db, actor.domainId);
        const keys = await resolveKeys(body, actor.domainId);
        await checkProfile(db, actor.domainId, body, keys);
        const id = randomUUID();
        const settings = await storedOf(body, keys, actor.domainId, id);
        const now = clock();
        const row: TdeProfileTable = {
          id,
          domain_id: actor.domainId,
          name: body.name,
          description: body.description,
          settings: JSON.stringify(settings),
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        };
        return db
          .transaction()
          .execute(async (trx) => {
            await trx.insertInto('tde_profile').values(row).execute();
            await setRefs(
              trx,
              actor.domainId,
              'profile',
              row.id,
              settings.rwp_process_set_id ? [settings.rwp_process_set_id] : [],
            );
            await bumpClientConfig(trx, actor.domainId, now);
            await audit(trx, actor, meta, 'profile.create', row);
            return profileView(trx, row);
          })
          .catch((err: unknown) => {
            throw isUniqueViolation(err) ? conflict('tdePolicy.profileNameTaken', { name: body.name }) : err;
          });
      });
    },

    async profileUpdate(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdePolicy.profileUpdate>) {
      return change(actor, meta, 'profile.update', { id: null, name: body.name }, async () => {
        const old = await findProfile(db, actor.domainId, body.name);
        const keys = await resolveKeys(body, actor.domainId, { id: old.id, settings: storedSettings(old) });
        await checkProfile(db, actor.domainId, body, keys);
        const settings = await storedOf(body, keys, actor.domainId, old.id);
        const now = clock();
        return db.transaction().execute(async (trx) => {
          await trx
            .updateTable('tde_profile')
            .set({
              description: body.description,
              settings: JSON.stringify(settings),
              updated_at: now.toISOString(),
            })
            .where('id', '=', old.id)
            .execute();
          await setRefs(
            trx,
            actor.domainId,
            'profile',
            old.id,
            settings.rwp_process_set_id ? [settings.rwp_process_set_id] : [],
          );
          await bumpClientConfig(trx, actor.domainId, now);
          await audit(trx, actor, meta, 'profile.update', old);
          return profileView(trx, await findProfile(trx, actor.domainId, old.name));
        });
      });
    },

    async profileDelete(actor: Actor, meta: RequestMeta, name: string) {
      return change(actor, meta, 'profile.delete', { id: null, name }, async () => {
        if (name === DEFAULT_PROFILE) throw stateForbids('tdePolicy.profileDefault', { name });
        const row = await findProfile(db, actor.domainId, name);
        return db.transaction().execute(async (trx) => {
          const count = await profileUsers(trx, actor.domainId, row.name);
          if (count > 0) throw conflict('tdePolicy.profileInUse', { name: row.name, count });
          await trx.deleteFrom('tde_element_ref').where('from_id', '=', row.id).execute();
          await trx.deleteFrom('tde_profile').where('id', '=', row.id).execute();
          await bumpClientConfig(trx, actor.domainId, clock());
          await audit(trx, actor, meta, 'profile.delete', row);
          return { deleted: 1 };
        });
      });
    },
  };
}

export type TdePolicyService = ReturnType<typeof createTdePolicyService>;
