import { randomUUID } from 'node:crypto';
import {
  CLEAR_KEY,
  type api,
  type Input,
  type PolicyDetail,
  type PolicyRow,
  type PolicyType,
} from '@ksp/contracts';
import { isUniqueViolation, type Executor } from '../../platform/db/database.js';
import type { TdePolicyTable } from '../../platform/db/schema.js';
import { conflict, invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { PolicyCompiler } from './tde-policy.compile.js';
import type { PolicyContext } from './tde-policy.context.js';
import {
  bool,
  parse,
  requireSet,
  tdeUsable,
  type Cte,
  type KeyRule,
  type PolicyArea,
  type PolicyContent,
  type RdmSettings,
  type SecurityRule,
} from './tde-policy.model.js';
import {
  deletePolicy,
  findPolicyRow,
  insertPolicy,
  keysOfIds,
  policyPage,
  tdeKeyCandidates,
  updatePolicy,
} from './tde-policy.store.js';

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

const policyTaken = (type: string, name: string) => (err: unknown) => {
  throw isUniqueViolation(err) ? conflict('tdePolicy.policyNameTaken', { type, name }) : err;
};

/** The columns of a policy's content, as stored. */
const contentColumns = (
  body: Pick<PolicyContent, 'name' | 'description' | 'learn_mode' | 'restrict_update'>,
  checked: { securityRules: SecurityRule[]; keyRules: KeyRule[]; rdm: RdmSettings | null },
  at: string,
) => ({
  name: body.name,
  description: body.description,
  learn_mode: body.learn_mode ? 1 : 0,
  restrict_update: body.restrict_update ? 1 : 0,
  security_rules: JSON.stringify(checked.securityRules),
  key_rules: JSON.stringify(checked.keyRules),
  rdm: checked.rdm ? JSON.stringify(checked.rdm) : null,
  updated_at: at,
});

/** TDE and RDM policies: list, detail, create, update, delete, and the keys a key rule may name. */
export function createPolicyCalls(ctx: PolicyContext, compiler: PolicyCompiler) {
  const { db, clock } = ctx;

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
    const sets = await ctx.setsById(q, domainId, ids);
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
    const keys = await keysOfIds(
      q,
      domainId,
      body.key_rules.map((r) => r.key_id).filter((k) => k !== CLEAR_KEY),
    );
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

  async function policyView(q: Executor, r: TdePolicyTable): Promise<PolicyDetail> {
    const { securityRules, keyRules, rdm, sets } = await compiler.parsedPolicy(q, r);
    const ref = (id: string | null) => {
      const s = id ? sets.get(id) : undefined;
      return s ? { id: s.id, name: s.name } : null;
    };
    const keys = await keysOfIds(
      q,
      r.domain_id,
      keyRules.map((k) => k.key_id).filter((k) => k !== CLEAR_KEY),
    );
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
      guard_points: await ctx.guardPoints(q, r.domain_id, r.id),
    };
  }

  async function findPolicy(q: Executor, domainId: string, id: string, area: PolicyArea) {
    const row = await findPolicyRow(q, domainId, id, area === 'rdm');
    if (!row) throw notFound('tdePolicy.policyNotFound', { id });
    return row;
  }

  return {
    async policyList(
      actor: Actor,
      area: PolicyArea,
      query: { page: number; page_size: number; name?: string | undefined; type?: PolicyType | undefined },
    ) {
      const type = area === 'rdm' ? 'rdm' : query.type;
      const { rows, total } = await policyPage(db, actor.domainId, { ...query, type });
      return { data: rows.map(policyRow), total };
    },

    async policyDetail(actor: Actor, area: PolicyArea, id: string) {
      return policyView(db, await findPolicy(db, actor.domainId, id, area));
    },

    async policyCreate(actor: Actor, meta: RequestMeta, body: Input<typeof api.tdePolicy.policyCreate>) {
      return ctx.change(actor, meta, 'policy.create', { id: null, name: body.name }, async () => {
        const checked = await checkPolicy(db, actor.domainId, body.type, body);
        const now = clock();
        const row: TdePolicyTable = {
          id: randomUUID(),
          domain_id: actor.domainId,
          type: body.type,
          revision: 1,
          created_at: now.toISOString(),
          ...contentColumns(body, checked, now.toISOString()),
        };
        return ctx
          .saveReferrer(
            actor.domainId,
            { kind: 'policy', id: row.id, refs: checked.refs },
            now,
            (trx) => insertPolicy(trx, row),
            async (trx) => {
              await ctx.recordChange(trx, actor, meta, 'policy.create', row, {
                type: row.type,
                security_rules: checked.securityRules.length,
                key_rules: checked.keyRules.length,
              });
              return policyView(trx, row);
            },
          )
          .catch(policyTaken(body.type, body.name));
      });
    },

    async policyUpdate(
      actor: Actor,
      meta: RequestMeta,
      area: PolicyArea,
      body: Input<typeof api.tdePolicy.policyUpdate>,
    ) {
      return ctx.change(actor, meta, 'policy.update', { id: body.id, name: body.name }, async () => {
        const old = await findPolicy(db, actor.domainId, body.id, area);
        const type = old.type as PolicyType;
        if (body.type !== undefined && body.type !== type)
          throw stateForbids('tdePolicy.typeLocked', { name: old.name, type });
        if (old.restrict_update) {
          const count = await ctx.guardPoints(db, actor.domainId, old.id);
          if (count > 0) throw stateForbids('tdePolicy.restricted', { name: old.name, count });
        }
        const checked = await checkPolicy(db, actor.domainId, type, body);
        const now = clock();
        return ctx
          .saveReferrer(
            actor.domainId,
            { kind: 'policy', id: old.id, refs: checked.refs },
            now,
            (trx) =>
              updatePolicy(trx, actor.domainId, old.id, contentColumns(body, checked, now.toISOString())),
            async (trx) => {
              const row = await findPolicy(trx, actor.domainId, old.id, area);
              await ctx.recordChange(trx, actor, meta, 'policy.update', row, {
                type,
                revision: Number(row.revision),
                security_rules: checked.securityRules.length,
                key_rules: checked.keyRules.length,
                ...(old.name !== body.name ? { renamed_from: old.name } : {}),
              });
              return policyView(trx, row);
            },
          )
          .catch(policyTaken(type, body.name));
      });
    },

    async policyDelete(actor: Actor, meta: RequestMeta, area: PolicyArea, id: string) {
      return ctx.change(actor, meta, 'policy.delete', { id, name: id }, async () => {
        const row = await findPolicy(db, actor.domainId, id, area);
        return ctx.deleteChecked(
          actor,
          meta,
          { action: 'policy.delete', target: row, details: { type: row.type } },
          async (trx) => {
            const count = await ctx.guardPoints(trx, actor.domainId, row.id);
            if (count > 0) throw conflict('tdePolicy.policyInUse', { name: row.name, count });
          },
          (trx) => deletePolicy(trx, row.id),
        );
      });
    },

    async keyOptions(actor: Actor) {
      const keys = await tdeKeyCandidates(db, actor.domainId);
      return keys.filter(tdeUsable).map((k) => {
        const cte = parse<Cte>(k.cte ?? '{}');
        return { id: k.id, name: k.name, encryption_mode: cte.encryption_mode, versioned: cte.versioned };
      });
    },
  };
}
