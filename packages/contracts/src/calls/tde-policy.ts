import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, PageQuery, pageOf } from '../common.js';
import { objectName } from '../rules/text.js';
import { policyActions, policyEffects } from '../agent.js';

/**
 * TDE and RDM policies (docs/modules.md#tde-and-rdm-policies): policy elements (resource, user, process
 * and signature sets), policies with ordered security rules and key rules, and client
 * profiles. Policy elements and profiles are TDE (`cte:*`) objects; RDM policies are managed
 * through the `/v1/ksp/rdm/policy/*` calls (`rdm:*`), and RDM pages read elements through the
 * `/v1/ksp/rdm/policy-element/list|detail` calls (`rdm:read`); creating or changing an element
 * takes `cte:write`. See modules/tde-policy/README.md and docs/api.md "TDE policies".
 */
export const policyElementKinds = ['resource', 'user', 'process', 'signature'] as const;
export type PolicyElementKind = (typeof policyElementKinds)[number];
export const policyTypes = ['standard', 'rdm'] as const;
export type PolicyType = (typeof policyTypes)[number];
export const rdmModes = ['audit', 'block'] as const;
export const logThresholds = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;
/** The profile every domain has, made when first needed; it cannot be deleted. */
export const DEFAULT_PROFILE = 'DefaultClientProfile';
/** The key rule `key_id` that keeps files in clear. */
export const CLEAR_KEY = 'clear_key';

/** Bounds of an RDM policy's alert threshold. */
export const RDM_THRESHOLD = { files: { min: 5, max: 100_000 }, window_s: { min: 1, max: 3600 } } as const;
/** How many entries a set, and rules a policy, may have. */
export const MAX_ENTRIES = 200;
export const MAX_RULES = 100;

const Description = z.string().trim().max(256).default('');
const Path = z.string().trim().max(1024);
const FileName = z.string().trim().max(255);
const AccountId = z.number().int().min(0).max(4_294_967_294);
const AccountName = z.string().trim().min(1).max(64);

export const ResourceEntry = z.object({
  directory: Path.min(1).describe(
    'path within the guard point, starting with "/" ("/" is the guard point itself)',
  ),
  file: FileName.default('').describe('file name or pattern (`*` within a name); empty: every file'),
  include_subfolders: z.boolean().default(false),
});
export const UserEntry = z.object({
  uname: AccountName.optional().describe('user name'),
  uid: AccountId.optional().describe('user id, 0–4294967294'),
  gname: AccountName.optional().describe('group name'),
  gid: AccountId.optional().describe('group id, 0–4294967294'),
});
export const ProcessEntry = z.object({
  directory: Path.default('').describe(
    'absolute directory of the executable ("/usr/bin", "C:\\\\Tools"); empty: any',
  ),
  file: FileName.default('').describe('executable file name or pattern; empty: any'),
  signature_set_id: Id.nullable()
    .default(null)
    .describe('a signature set of the domain: the executable must have one of its hashes'),
});
export const Signature = z.object({
  file_name: Path.min(1).describe('the signed file'),
  hash_value: z.string().trim().max(64).describe('SHA-256 of the file, 64 hexadecimal characters'),
});

const ElementContent = {
  name: objectName(64),
  description: Description,
  resources: z.array(ResourceEntry).max(200).default([]).describe('resource set entries'),
  users: z.array(UserEntry).max(200).default([]).describe('user set entries (any subset of the fields)'),
  processes: z.array(ProcessEntry).max(200).default([]).describe('process set entries'),
  source_list: z.array(Path.min(1)).max(200).default([]).describe('signature set: absolute paths to sign'),
  signatures: z.array(Signature).max(1000).default([]).describe('signature set: file hashes'),
};

export const ElementRef = z.object({
  kind: z.enum(['policy', 'element', 'profile']).describe('what refers to the element'),
  id: z.string(),
  name: z.string(),
});

export const PolicyElementRow = z.object({
  id: z.string(),
  kind: z.enum(policyElementKinds),
  name: z.string(),
  description: z.string(),
  entry_count: z.number().int().describe('entries (signature sets: signatures)'),
  used_by: z.array(ElementRef).describe('policies, sets and profiles referring to it'),
  created_at: z.string(),
  updated_at: z.string(),
});
export const PolicyElementDetail = PolicyElementRow.extend({
  resources: z.array(ResourceEntry),
  users: z.array(UserEntry),
  processes: z.array(ProcessEntry.extend({ signature_set_name: z.string().nullable() })),
  source_list: z.array(z.string()),
  signatures: z.array(Signature),
});
export type PolicyElementDetail = z.infer<typeof PolicyElementDetail>;

export const SecurityRule = z.object({
  user_set_id: Id.nullable().default(null).describe('null: any user'),
  process_set_id: Id.nullable().default(null).describe('null: any process'),
  resource_set_id: Id.nullable().default(null).describe('null: any file'),
  exclude_user_set: z.boolean().default(false).describe('the rule matches users NOT in the set'),
  exclude_process_set: z.boolean().default(false),
  exclude_resource_set: z.boolean().default(false),
  actions: z.array(z.enum(policyActions)).min(1).max(policyActions.length),
  effects: z.array(z.enum(policyEffects)).min(1).max(policyEffects.length),
});
export const KeyRule = z.object({
  resource_set_id: Id.nullable().default(null).describe('null: every file'),
  key_id: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .describe(`an AES-256 key of the domain with TDE attributes, or "${CLEAR_KEY}" (files stay in clear)`),
});
export const RdmSettings = z.object({
  mode: z.enum(rdmModes).describe('audit: report a suspicious process; block: stop it'),
  trusted_process_set_ids: z
    .array(Id)
    .max(20)
    .default([])
    .describe('process sets never treated as suspicious'),
  threshold: z
    .object({
      files: z.number().int().min(RDM_THRESHOLD.files.min).max(RDM_THRESHOLD.files.max),
      window_s: z.number().int().min(RDM_THRESHOLD.window_s.min).max(RDM_THRESHOLD.window_s.max),
    })
    .describe('a process rewriting `files` files within `window_s` seconds is suspicious'),
});

const PolicyContent = {
  name: objectName(64),
  description: Description,
  learn_mode: z.boolean().default(false).describe('never deny: denials are audited but permitted'),
  restrict_update: z.boolean().default(false).describe('no edits while a guard point uses the policy'),
  security_rules: z.array(SecurityRule).max(MAX_RULES).default([]).describe('in the order they apply'),
  key_rules: z.array(KeyRule).max(MAX_RULES).default([]).describe('standard policies only; first match wins'),
  rdm: RdmSettings.nullable().default(null).describe('rdm policies only (required for them)'),
};

const NamedRef = z.object({ id: z.string(), name: z.string() }).nullable();
export const PolicyRow = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  type: z.enum(policyTypes),
  learn_mode: z.boolean(),
  restrict_update: z.boolean(),
  revision: z.number().int().describe('grows by one with every edit'),
  security_rule_count: z.number().int(),
  key_rule_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PolicyRow = z.infer<typeof PolicyRow>;
export const PolicyDetail = PolicyRow.extend({
  security_rules: z.array(
    SecurityRule.extend({
      order: z.number().int(),
      user_set: NamedRef,
      process_set: NamedRef,
      resource_set: NamedRef,
    }),
  ),
  key_rules: z.array(
    KeyRule.extend({ order: z.number().int(), resource_set: NamedRef, key_name: z.string().nullable() }),
  ),
  rdm: RdmSettings.extend({
    trusted_process_sets: z.array(z.object({ id: z.string(), name: z.string() })),
  }).nullable(),
  guard_points: z.number().int().describe('guard points using it (0 until TDE clients exist)'),
});
export type PolicyDetail = z.infer<typeof PolicyDetail>;

export const TdeKeyOption = z.object({
  id: z.string(),
  name: z.string(),
  encryption_mode: z.string(),
  versioned: z.boolean(),
});

/** Client syslog (docs/modules.md#client-profiles): where an agent sends its log events besides the upload. */
export const profileSyslogProtocols = ['TCP', 'UDP', 'TLS'] as const;
export const profileSyslogFormats = ['CEF', 'LEEF', 'RFC5424', 'PLAIN'] as const;
export const MAX_PROFILE_SYSLOG_SERVERS = 2;
/** LDT (live data transformation) QoS schedules. */
export const ldtQosSchedules = [
  'CUSTOM',
  'CUSTOM_WITH_OVERWRITE',
  'ANY_TIME',
  'WEEKNIGHTS',
  'WEEKENDS',
] as const;
export const weekdays = [
  'MONDAY',
  'TUESDAY',
  'WEDNESDAY',
  'THURSDAY',
  'FRIDAY',
  'SATURDAY',
  'SUNDAY',
] as const;
export const LDT_QOS = {
  rekey_rate_mbps: { min: 0, max: 32_767 },
  cpu_percent: { min: 0, max: 100 },
  status_check_rate_s: { min: 600, max: 86_400 },
  max_schedules: 50,
} as const;

const Pem = z.string().trim().max(16_384);
/** A syslog server as stored and read: the private key is never answered, only whether there is one. */
export const ProfileSyslogServerBase = z.object({
  name: z.string().trim().min(1).max(253).describe('host name or IP address of the syslog server'),
  port: z.number().int().min(1).max(65_535).default(514),
  protocol: z.enum(profileSyslogProtocols).default('UDP'),
  message_format: z.enum(profileSyslogFormats).default('RFC5424'),
  cacertificate: Pem.default('').describe('TLS: the CA certificate(s) that sign the server (PEM), required'),
  certificate: Pem.default('').describe('TLS: the client certificate (PEM), optional, with privatekey'),
});
export const ProfileSyslogServerInput = ProfileSyslogServerBase.extend({
  privatekey: Pem.optional().describe(
    'TLS: the private key of `certificate` (PEM). Omitted: the key stored for the server of the same name and port is kept; "": none. Stored sealed, never answered.',
  ),
});
export const ProfileSyslogServer = ProfileSyslogServerBase.extend({
  has_private_key: z.boolean().describe('a client private key is stored (it is never answered)'),
});
export type ProfileSyslogServer = z.infer<typeof ProfileSyslogServer>;
export const QosSchedule = z.object({
  start_weekday: z.enum(weekdays),
  start_time: z
    .string()
    .trim()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM, 00:00–23:59'),
  end_weekday: z.enum(weekdays),
  end_time: z
    .string()
    .trim()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM, 00:00–23:59'),
});
export type QosSchedule = z.infer<typeof QosSchedule>;
const LdtQos = z
  .object({
    ldt_qos_schedule: z.enum(ldtQosSchedules).default('ANY_TIME').describe('when LDT may rekey files'),
    qos_schedules: z
      .array(QosSchedule)
      .max(LDT_QOS.max_schedules)
      .default([])
      .describe('CUSTOM and CUSTOM_WITH_OVERWRITE only (at least one); empty otherwise'),
    rekey_rate_mbps: z
      .number()
      .int()
      .min(LDT_QOS.rekey_rate_mbps.min)
      .max(LDT_QOS.rekey_rate_mbps.max)
      .nullable()
      .default(0)
      .describe('rekey rate limit in MB/s, 0–32767 (0: no limit); exactly one of this and cpu_percent'),
    cpu_percent: z
      .number()
      .int()
      .min(LDT_QOS.cpu_percent.min)
      .max(LDT_QOS.cpu_percent.max)
      .nullable()
      .default(null)
      .describe('CPU use limit in %, 0–100; exactly one of this and rekey_rate_mbps'),
    ldt_qos_status_check_rate: z
      .number()
      .int()
      .min(LDT_QOS.status_check_rate_s.min)
      .max(LDT_QOS.status_check_rate_s.max)
      .default(3600)
      .describe('seconds between two LDT QoS status checks, 600–86400'),
  })
  .prefault({});

export const profileSettingsOf = <S extends z.ZodType>(server: S) =>
  z.object({
    syslog_settings: z
      .object({
        local: z.boolean().default(false).describe('also log to the local system log of the host'),
        servers: z.array(server).max(MAX_PROFILE_SYSLOG_SERVERS).default([]).describe('at most 2'),
        syslog_threshold: z.enum(logThresholds).default('WARN'),
      })
      .prefault({}),
    ldt_qos: LdtQos,
  });

export const ProfileSettings = z.object({
  logging: z
    .object({
      threshold: z.enum(logThresholds).default('WARN'),
      duplicates: z.enum(['ALLOW', 'SUPPRESS']).default('SUPPRESS'),
      file_enabled: z.boolean().default(true),
      syslog_enabled: z.boolean().default(false),
      upload_enabled: z.boolean().default(true),
    })
    .prefault({}),
  file_settings: z
    .object({
      max_file_size_kb: z.number().int().min(1).max(1_048_576).default(1024).describe('1 KB–1 GB'),
      max_old_files: z.number().int().min(1).max(100).default(5),
      allow_purge: z.boolean().default(true),
    })
    .prefault({}),
  upload_settings: z
    .object({
      connection_timeout_s: z.number().int().min(1).max(60).default(30),
      min_interval_s: z.number().int().min(1).max(86_400).default(10),
      max_interval_s: z.number().int().min(1).max(86_400).default(600).describe('at least min_interval_s'),
      max_messages: z.number().int().min(100).max(10_000).default(1000),
      drop_if_busy: z.boolean().default(false),
    })
    .prefault({}),
  duplicate_settings: z
    .object({
      suppress_interval_s: z.number().int().min(1).max(1000).default(600),
      suppress_threshold: z.number().int().min(1).max(100).default(5),
    })
    .prefault({}),
  cache_settings: z
    .object({
      max_files: z.number().int().min(200).max(10_000_000).default(200),
      max_space_mb: z.number().int().min(100).max(1_048_576).default(100),
    })
    .prefault({}),
  connect_timeout_s: z.number().int().min(5).max(150).default(30),
  rwp_operation: z
    .enum(['permit', 'deny'])
    .default('permit')
    .describe('ransomware: permit = audit, deny = block'),
  rwp_process_set_id: Id.nullable().default(null).describe('trusted processes of ransomware protection'),
});
export type ProfileSettings = z.infer<typeof ProfileSettings>;
/** The settings a create or update sends (a syslog server may carry its private key). */
export const ProfileSettingsInput = ProfileSettings.extend(profileSettingsOf(ProfileSyslogServerInput).shape);
/** The settings as read (no private key, `has_private_key` instead). */
export const ProfileSettingsView = ProfileSettings.extend(profileSettingsOf(ProfileSyslogServer).shape);

export const ProfileRow = ProfileSettingsView.extend({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  is_default: z.boolean(),
  rwp_process_set_name: z.string().nullable(),
  users: z.number().int().describe('clients and client groups using it'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ProfileRow = z.infer<typeof ProfileRow>;

const IdBody = z.object({ id: Id });
const ElementListQuery = PageQuery.extend({
  kind: z.enum(policyElementKinds).optional(),
  name: z.string().trim().max(64).optional().describe('part of the name'),
});
const PolicyListQuery = PageQuery.extend({
  name: z.string().trim().max(64).optional().describe('part of the name'),
});

const element = (area: 'cte' | 'rdm') => ({
  list: defineCall({
    method: 'GET',
    path: `/v1/ksp/${area}/policy-element/list`,
    summary: 'Policy elements of the current domain, by kind and name, with what uses each',
    tag: 'tde-policy',
    access: `${area}:read`,
    tokens: ['session', area],
    query: ElementListQuery,
    data: pageOf(PolicyElementRow),
  }),
  detail: defineCall({
    method: 'GET',
    path: `/v1/ksp/${area}/policy-element/detail`,
    summary: 'A policy element with its entries',
    tag: 'tde-policy',
    access: `${area}:read`,
    tokens: ['session', area],
    query: IdBody,
    data: PolicyElementDetail,
  }),
});

const policy = (area: 'cte' | 'rdm') => ({
  list: defineCall({
    method: 'GET',
    path: `/v1/ksp/${area}/policy/list`,
    summary:
      area === 'cte'
        ? 'Policies of the current domain (standard and RDM), by name'
        : 'RDM (anti-ransomware) policies of the current domain',
    tag: 'tde-policy',
    access: `${area}:read`,
    tokens: ['session', area],
    query:
      area === 'cte' ? PolicyListQuery.extend({ type: z.enum(policyTypes).optional() }) : PolicyListQuery,
    data: pageOf(PolicyRow),
  }),
  detail: defineCall({
    method: 'GET',
    path: `/v1/ksp/${area}/policy/detail`,
    summary: 'A policy with its rules (set and key names resolved)',
    tag: 'tde-policy',
    access: `${area}:read`,
    tokens: ['session', area],
    query: IdBody,
    data: PolicyDetail,
  }),
  create: defineCall({
    method: 'POST',
    path: `/v1/ksp/${area}/policy/create`,
    summary: area === 'cte' ? 'Create a policy (its type cannot change later)' : 'Create an RDM policy',
    tag: 'tde-policy',
    access: `${area}:write`,
    tokens: ['session', area],
    changesAccess: false,
    body: z.object({
      ...PolicyContent,
      type: (area === 'cte'
        ? z.enum(policyTypes).default('standard')
        : z.literal('rdm').default('rdm')
      ).describe('standard (TDE) or rdm; locked after creation'),
    }),
    data: PolicyDetail,
  }),
  update: defineCall({
    method: 'POST',
    path: `/v1/ksp/${area}/policy/update`,
    summary:
      "Replace a policy's settings and rules (rules in the order given: moving a rule is sending the new order); the revision grows by one",
    tag: 'tde-policy',
    access: `${area}:write`,
    tokens: ['session', area],
    changesAccess: false,
    body: z.object({
      id: Id,
      ...PolicyContent,
      type: z.enum(policyTypes).optional().describe("if given, must be the policy's type (it cannot change)"),
    }),
    data: PolicyDetail,
  }),
  delete: defineCall({
    method: 'POST',
    path: `/v1/ksp/${area}/policy/delete`,
    summary: 'Delete a policy no guard point uses',
    tag: 'tde-policy',
    access: `${area}:write`,
    tokens: ['session', area],
    changesAccess: false,
    body: IdBody,
    data: z.object({ deleted: z.number().int() }),
  }),
});

const elementBody = z.object({ kind: z.enum(policyElementKinds), ...ElementContent });

export const tdePolicyCalls = {
  elementList: element('cte').list,
  elementDetail: element('cte').detail,
  elementCreate: defineCall({
    method: 'POST',
    path: '/v1/ksp/cte/policy-element/create',
    summary: 'Create a policy element: the entries of its kind only',
    tag: 'tde-policy',
    access: 'cte:write',
    tokens: ['session', 'cte'],
    changesAccess: false,
    body: elementBody,
    data: PolicyElementDetail,
  }),
  elementUpdate: defineCall({
    method: 'POST',
    path: '/v1/ksp/cte/policy-element/update',
    summary: "Replace an element's name, description and entries (its kind cannot change)",
    tag: 'tde-policy',
    access: 'cte:write',
    tokens: ['session', 'cte'],
    changesAccess: false,
    body: z.object({ id: Id, ...ElementContent }),
    data: PolicyElementDetail,
  }),
  elementDelete: defineCall({
    method: 'POST',
    path: '/v1/ksp/cte/policy-element/delete',
    summary: 'Delete a policy element nothing refers to',
    tag: 'tde-policy',
    access: 'cte:write',
    tokens: ['session', 'cte'],
    changesAccess: false,
    body: IdBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  policyList: policy('cte').list,
  policyDetail: policy('cte').detail,
  policyCreate: policy('cte').create,
  policyUpdate: policy('cte').update,
  policyDelete: policy('cte').delete,
  keyOptions: defineCall({
    method: 'GET',
    path: '/v1/ksp/cte/policy/key-options',
    summary: 'Keys a key rule may name: AES-256 keys of the domain with TDE attributes, not destroyed',
    tag: 'tde-policy',
    access: 'cte:read',
    tokens: ['session', 'cte'],
    data: z.array(TdeKeyOption),
  }),
  profileList: defineCall({
    method: 'GET',
    path: '/v1/ksp/cte/profile/list',
    summary: 'Client profiles of the current domain (the default one first)',
    tag: 'tde-policy',
    access: 'cte:read',
    tokens: ['session', 'cte'],
    query: PolicyListQuery,
    data: pageOf(ProfileRow),
  }),
  profileDetail: defineCall({
    method: 'GET',
    path: '/v1/ksp/cte/profile/detail',
    summary: 'A client profile, by name',
    tag: 'tde-policy',
    access: 'cte:read',
    tokens: ['session', 'cte'],
    query: z.object({ name: z.string().trim().min(1).max(64) }),
    data: ProfileRow,
  }),
  profileCreate: defineCall({
    method: 'POST',
    path: '/v1/ksp/cte/profile/create',
    summary: 'Create a client profile (unset settings take their defaults)',
    tag: 'tde-policy',
    access: 'cte:write',
    tokens: ['session', 'cte'],
    changesAccess: false,
    body: ProfileSettingsInput.extend({ name: objectName(64), description: Description }),
    data: ProfileRow,
  }),
  profileUpdate: defineCall({
    method: 'POST',
    path: '/v1/ksp/cte/profile/update',
    summary: "Replace a profile's description and settings (its name cannot change)",
    tag: 'tde-policy',
    access: 'cte:write',
    tokens: ['session', 'cte'],
    changesAccess: false,
    body: ProfileSettingsInput.extend({ name: z.string().trim().min(1).max(64), description: Description }),
    data: ProfileRow,
  }),
  profileDelete: defineCall({
    method: 'POST',
    path: '/v1/ksp/cte/profile/delete',
    summary: 'Delete a profile no client or client group uses (never the default one)',
    tag: 'tde-policy',
    access: 'cte:write',
    tokens: ['session', 'cte'],
    changesAccess: false,
    body: z.object({ name: z.string().trim().min(1).max(64) }),
    data: z.object({ deleted: z.number().int() }),
  }),
};

export const rdmPolicyCalls = {
  elementList: element('rdm').list,
  elementDetail: element('rdm').detail,
  policyList: policy('rdm').list,
  policyDetail: policy('rdm').detail,
  policyCreate: policy('rdm').create,
  policyUpdate: policy('rdm').update,
  policyDelete: policy('rdm').delete,
};
