import { consoleAreas } from '../areas.js';
import type { Permission } from '../permissions.js';
import type { MenuNode } from './model.js';

/**
 * The policy pages of the TDE (`/cte`) and RDM (`/rdm`) sub-consoles (docs/modules.md#console-routes,
 * docs/modules.md#tde-and-rdm-policies): policies, policy elements and (TDE) client profiles. The
 * page key is the route name of docs/modules.md#console-routes (`cte/policies/policies`). The TDE client pages join
 * these groups when they land.
 */
export const ctePolicyPageKeys = [
  'cte/policies/policies',
  'cte/policies/create-policies',
  'cte/policies/policies-details',
  'cte/policies/policy-elements',
  'cte/policies/create-policies-elements',
  'cte/policies/policy-elements-details',
  'cte/setting/profiles',
  'cte/setting/profiles-details',
] as const;
export const rdmPolicyPageKeys = [
  'rdm/policies/policies',
  'rdm/policies/create-policies',
  'rdm/policies/policies-details',
  'rdm/policies/policy-elements',
  'rdm/policies/create-policies-elements',
  'rdm/policies/policy-elements-details',
] as const;

const route = (
  path: string,
  name: string,
  permission: Permission,
  title: string,
  o: { param?: string; hidden?: boolean; icon?: string } = {},
): MenuNode => ({
  path: o.param ? `${path}/:${o.param}` : path,
  name,
  component: path.slice(1),
  permission,
  ...(o.hidden ? { hidden: true } : {}),
  meta: o.hidden ? { title, noCache: true } : { title, ...(o.icon ? { icon: o.icon } : {}) },
});

/** The six policy routes of one area (Cte or Rdm names). */
function policyRoutes(area: 'cte' | 'rdm'): MenuNode[] {
  const { path, permission } = consoleAreas[area];
  const p = `${path}/policies`;
  const n = area === 'cte' ? 'Cte' : 'Rdm';
  return [
    route(`${p}/policies`, `${n}Policies`, permission, 'tdePolicies', { icon: 'tdePolicies' }),
    route(`${p}/policy-elements`, `${n}PolicyElements`, permission, 'tdePolicyElements', {
      icon: 'tdePolicyElements',
    }),
    route(`${p}/create-policies`, `${n}CreatePolicy`, permission, 'tdeCreatePolicy', { hidden: true }),
    route(`${p}/policies-details`, `${n}PolicyDetail`, permission, 'tdePolicyDetail', {
      param: 'id',
      hidden: true,
    }),
    route(`${p}/create-policies-elements`, `${n}CreatePolicyElement`, permission, 'tdeCreatePolicyElement', {
      hidden: true,
    }),
    route(`${p}/policy-elements-details`, `${n}PolicyElementDetail`, permission, 'tdePolicyElementDetail', {
      param: 'id',
      hidden: true,
    }),
  ];
}

/** The TDE sub-console's policies, policy elements and client profiles (menu/index.ts groups them with the clients). */
export const ctePolicyNodes: MenuNode[] = [
  ...policyRoutes('cte'),
  route('/cte/setting/profiles', 'CteProfiles', consoleAreas.cte.permission, 'tdeProfiles', {
    icon: 'tdeProfiles',
  }),
  route(
    '/cte/setting/profiles-details',
    'CteProfileDetail',
    consoleAreas.cte.permission,
    'tdeProfileDetail',
    {
      param: 'name',
      hidden: true,
    },
  ),
];

/** The RDM sub-console's policies and the (shared) policy elements. */
export const rdmPolicyNodes: MenuNode[] = policyRoutes('rdm');
