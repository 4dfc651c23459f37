import {
  CLEAR_KEY,
  type AgentKeyRule,
  type AgentPolicy,
  type AgentProcessEntry,
  type AgentResourceEntry,
  type AgentSecurityRule,
  type AgentUserEntry,
  type PolicyType,
} from '@ksp/contracts';
import type { Executor } from '../../platform/db/database.js';
import type { TdePolicyElementTable, TdePolicyTable } from '../../platform/db/schema.js';
import type { PolicyContext } from './tde-policy.context.js';
import {
  bool,
  parse,
  type KeyRule,
  type ProcessEntry,
  type RdmSettings,
  type ResourceEntry,
  type SecurityRule,
  type Signature,
} from './tde-policy.model.js';

const resourceEntries = (s: TdePolicyElementTable | undefined): AgentResourceEntry[] =>
  parse<ResourceEntry[]>(s?.entries ?? '[]').map((e) => ({
    directory: e.directory,
    ...(e.file ? { file: e.file } : {}),
    include_subfolders: e.include_subfolders,
  }));

/** A policy's rules read back, and policies compiled for agents (sets inlined, rules ordered). */
export function createPolicyCompiler(ctx: PolicyContext) {
  /** A policy's stored rules and RDM settings, and every policy element they name. */
  async function parsedPolicy(q: Executor, r: TdePolicyTable) {
    const securityRules = parse<SecurityRule[]>(r.security_rules);
    const keyRules = parse<KeyRule[]>(r.key_rules);
    const rdm = r.rdm ? parse<RdmSettings>(r.rdm) : null;
    const sets = await ctx.setsById(
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

  /** The processes of process sets, each entry's hashes from its signature set. */
  async function inlineProcesses(q: Executor, domainId: string, sets: TdePolicyElementTable[]) {
    const entriesOf = new Map(sets.map((s) => [s.id, parse<ProcessEntry[]>(s.entries)]));
    const sigIds = [...entriesOf.values()].flatMap((l) =>
      l.flatMap((e) => (e.signature_set_id ? [e.signature_set_id] : [])),
    );
    const sigs = await ctx.setsById(q, domainId, sigIds);
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

  return { parsedPolicy, inlineProcesses, compilePolicy };
}

export type PolicyCompiler = ReturnType<typeof createPolicyCompiler>;
