import { DEFAULT_PROFILE, type AgentProcessEntry, type AgentProfile, type PolicyType } from '@ksp/contracts';
import type { TdePolicyCatalog } from '../../platform/agent-config.js';
import type { PolicyCompiler } from './tde-policy.compile.js';
import type { PolicyContext } from './tde-policy.context.js';
import { parse, storedSettings, type KeyRule } from './tde-policy.model.js';
import type { ProfileSecrets } from './tde-policy.profile-secrets.js';
import { ensureDefaultProfile } from './tde-policy.profiles.js';
import {
  findPolicyRow,
  findProfileRow,
  policiesMentioningKeys,
  policySummaryRow,
} from './tde-policy.store.js';

/** The `tdePolicies` service other modules use (platform/agent-config.ts `TdePolicyCatalog`). */
export function createTdePolicyCatalog(
  ctx: PolicyContext,
  compiler: PolicyCompiler,
  secrets: ProfileSecrets,
): TdePolicyCatalog {
  return {
    async policiesUsingKeys(q, domainId, keyIds) {
      if (keyIds.length === 0) return [];
      // Key rules are JSON: the text search narrows, the parse decides.
      const out: { keyId: string; policy: string }[] = [];
      for (const row of await policiesMentioningKeys(q, domainId, keyIds))
        for (const rule of parse<KeyRule[]>(row.key_rules))
          if (
            keyIds.includes(rule.key_id) &&
            !out.some((o) => o.keyId === rule.key_id && o.policy === row.name)
          )
            out.push({ keyId: rule.key_id, policy: row.name });
      return out;
    },
    async describe(q, domainId, policyId) {
      const r = await policySummaryRow(q, domainId, policyId);
      return r ? { id: r.id, name: r.name, type: r.type as PolicyType } : undefined;
    },
    async compile(q, domainId, policyId) {
      const r = await findPolicyRow(q, domainId, policyId);
      return r ? compiler.compilePolicy(q, r) : undefined;
    },
    async profile(q, domainId, name, wrap) {
      const wanted = name ?? DEFAULT_PROFILE;
      if (wanted === DEFAULT_PROFILE) await ensureDefaultProfile(q, domainId, ctx.clock());
      const r = await findProfileRow(q, domainId, wanted);
      if (!r) return null;
      const s = storedSettings(r);
      let trusted: AgentProcessEntry[] = [];
      if (s.rwp_process_set_id) {
        const sets = await ctx.setsById(q, domainId, [s.rwp_process_set_id]);
        const processes = await compiler.inlineProcesses(q, domainId, [...sets.values()]);
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
          servers: await secrets.agentSyslogServers(q, r, s, wrap),
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
}
