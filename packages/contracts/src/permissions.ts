/**
 * Permissions are `<area>:<verb>`. A menu entry appears when its read permission is
 * held; the server checks the same permission on every call (docs/modules.md#permissions). The areas are
 * grouped as the menu is; the role editor's tree follows the groups.
 */
export const permissionGroups = [
  { key: 'dashboard', areas: ['dashboard'] },
  { key: 'product', areas: ['product'] },
  { key: 'access', areas: ['user', 'role', 'token', 'ldap'] },
  { key: 'keys', areas: ['key', 'kmip'] },
  { key: 'certificates', areas: ['cert'] },
  { key: 'log', areas: ['log', 'alarm'] },
  {
    key: 'settings',
    areas: [
      'domain',
      'license',
      'password-policy',
      'backup-key',
      'hsm',
      'backup',
      'scheduler',
      'syslog',
      'config',
      'quantum',
    ],
  },
  { key: 'sub-consoles', areas: ['cte', 'rdm', 'kadp', 'credential'] },
] as const satisfies readonly { key: string; areas: readonly string[] }[];

export type Area = (typeof permissionGroups)[number]['areas'][number];
export const areas: readonly Area[] = permissionGroups.flatMap((group) => group.areas);

/** One group of the role editor's permission tree. */
export interface PermissionGroup {
  key: string;
  areas: readonly Area[];
}

/** Areas that are only looked at: no `write`. */
const readOnlyAreas = ['dashboard', 'product'] as const satisfies readonly Area[];
/** Verbs beyond read and write, where they apply. */
const extraVerbs = {
  key: ['use', 'export'],
  cert: ['export'],
  credential: ['use'],
} as const satisfies Partial<Record<Area, readonly string[]>>;
type ExtraVerbs = typeof extraVerbs;

/** Every real permission, as a type: `${area}:read`, `:write` unless read-only, and the extra verbs. */
export type Permission =
  | `${Area}:read`
  | `${Exclude<Area, (typeof readOnlyAreas)[number]>}:write`
  | { [A in keyof ExtraVerbs]: `${A}:${ExtraVerbs[A][number]}` }[keyof ExtraVerbs];

const isReadOnly = (area: Area) => (readOnlyAreas as readonly Area[]).includes(area);
const extraVerbsOf = (area: Area): readonly string[] =>
  Object.hasOwn(extraVerbs, area) ? extraVerbs[area as keyof ExtraVerbs] : [];

/** Every permission, area by area (the order of `areas`); the same strings as `Permission`. */
export const permissions = areas.flatMap((area) => [
  `${area}:read`,
  ...(isReadOnly(area) ? [] : [`${area}:write`]),
  ...extraVerbsOf(area).map((verb) => `${area}:${verb}`),
]) as readonly Permission[];

/** The domain every installation starts with; its administrators have system scope. */
export const ROOT_DOMAIN = 'root';
/** The root domain's description as the server writes it; the console shows it translated. */
export const ROOT_DOMAIN_DESCRIPTION = 'Root domain';

/**
 * Areas that are global settings: only a session in the root domain holds their
 * permissions. Elsewhere a role's grants of them do not apply (and their menu entries
 * do not show), whatever the role says. The scheduler is not one: its tasks belong to a
 * domain and rotate only that domain's keys (issue 13). Backup keys and backups are not either:
 * a domain administrator backs up and restores their own domain (system-scope backups and
 * backup keys are refused outside root by the backup module itself).
 */
export const systemAreas: ReadonlySet<Area> = new Set<Area>([
  'ldap',
  'password-policy',
  'config',
  'license',
  'hsm',
  'syslog',
  'quantum',
]);

export const areaOf = (permission: string): string => permission.split(':')[0] ?? '';
const verbOf = (permission: Permission): string => permission.split(':')[1] ?? '';

/** The permissions that apply in one session: a role's grants less the system areas outside root. */
export function effectivePermissions(held: Iterable<string>, systemScope: boolean): Set<string> {
  const out = new Set<string>();
  for (const p of held) if (systemScope || !systemAreas.has(areaOf(p) as Area)) out.add(p);
  return out;
}

export function isPermission(value: string): value is Permission {
  return (permissions as readonly string[]).includes(value);
}

/** Areas an Operator may not read: who audits the operators stays out of their reach. */
const operatorHiddenAreas = new Set<Area>(['log', 'alarm', 'syslog']);
const operatorWritableAreas = new Set<Area>(['key', 'cert', 'cte', 'rdm', 'kadp', 'credential']);

export const builtInRoles = {
  Administrator: {
    description: 'Full control of the system',
    permissions: [...permissions],
  },
  Operator: {
    description: 'Runs keys, certificates, clients, policies and credentials',
    permissions: permissions.filter((p) => {
      const area = areaOf(p) as Area;
      const verb = verbOf(p);
      if (verb === 'read') return !operatorHiddenAreas.has(area);
      if (verb === 'write') return operatorWritableAreas.has(area);
      return verb === 'use';
    }),
  },
  Auditor: {
    description: 'Reads everything, including logs; changes nothing',
    permissions: permissions.filter((p) => p.endsWith(':read')),
  },
} as const satisfies Record<string, { description: string; permissions: readonly Permission[] }>;

export type BuiltInRoleName = keyof typeof builtInRoles;
export const ADMINISTRATOR: BuiltInRoleName = 'Administrator';
