import {
  ProfileSettings,
  ProfileSyslogServerBase,
  profileSettingsOf,
  type api,
  type Input,
  type PolicyElementKind,
  type ProfileSettingsInput,
} from '@ksp/contracts';
import { z } from 'zod';
import type { TdePolicyElementTable, TdeProfileTable } from '../../platform/db/schema.js';
import { invalid } from '../../platform/errors.js';

// The shapes of policy elements, rules and profile settings as stored (README.md).

export type ResourceEntry = { directory: string; file: string; include_subfolders: boolean };
export type UserEntry = { uname?: string; uid?: number; gname?: string; gid?: number };
export type ProcessEntry = { directory: string; file: string; signature_set_id: string | null };
export type Signature = { file_name: string; hash_value: string };
export type SecurityRule = Input<typeof api.tdePolicy.policyCreate>['security_rules'][number];
export type KeyRule = Input<typeof api.tdePolicy.policyCreate>['key_rules'][number];
export type RdmSettings = NonNullable<Input<typeof api.tdePolicy.policyCreate>['rdm']>;
export type ElementContent = Omit<Input<typeof api.tdePolicy.elementCreate>, 'kind'>;
export type PolicyContent = Omit<Input<typeof api.tdePolicy.policyCreate>, 'type'>;
export type Settings = z.output<typeof ProfileSettingsInput>;

/** A syslog server as stored: its private key sealed under the domain KEK (never in clear). */
const StoredSyslogServer = ProfileSyslogServerBase.extend({
  sealed_privatekey: z.string().nullable().default(null),
});
/** The settings column: older rows lack the syslog and QoS settings and get their defaults. */
const StoredSettings = ProfileSettings.extend(profileSettingsOf(StoredSyslogServer).shape);
export type Stored = z.output<typeof StoredSettings>;

/** Which policies an area's calls see: the TDE calls every policy, the RDM calls RDM ones only. */
export type PolicyArea = 'cte' | 'rdm';

export const bool = (v: number | boolean) => Boolean(v);
export const parse = <T>(text: string): T => JSON.parse(text) as T;

/** A profile's settings as stored, with the defaults of what older rows lack. */
export const storedSettings = (r: TdeProfileTable): Stored =>
  StoredSettings.parse(parse<unknown>(r.settings));

/** Checks that `id` is a set of `kind` in the domain; answers it. */
export function requireSet(
  sets: Map<string, TdePolicyElementTable>,
  field: string,
  kind: PolicyElementKind,
  id: string,
): TdePolicyElementTable {
  const set = sets.get(id);
  if (!set || set.kind !== kind) throw invalid('tdePolicy.setNotFound', { field, kind, id });
  return set;
}

/** A key's TDE attributes (the `cte` JSON of `kms_key`). */
export interface Cte {
  versioned: boolean;
  encryption_mode: string;
}

/** Whether TDE may use a key: AES-256, TDE attributes, non-versioned, CBC or CBC_CS1, not destroyed. */
export const tdeUsable = (k: { algorithm: string; cte: string | null; state: string }) => {
  if (k.algorithm !== 'AES-256' || !k.cte || k.state.startsWith('destroyed')) return false;
  const cte = parse<Cte>(k.cte);
  return !cte.versioned && (cte.encryption_mode === 'CBC' || cte.encryption_mode === 'CBC_CS1');
};
