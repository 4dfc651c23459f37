import { useLocation } from 'react-router';
import type { PolicyArea } from '../../api/tde-policy';

/** The sub-console a policy page is in, from its path: `/rdm/...` or `/cte/...`. */
export function usePolicyArea(): PolicyArea {
  return useLocation().pathname.startsWith('/rdm/') ? 'rdm' : 'cte';
}

export const policyPaths = (area: PolicyArea) => ({
  list: `/${area}/policies/policies`,
  create: `/${area}/policies/create-policies`,
  detail: (id: string) => `/${area}/policies/policies-details/${id}`,
  elements: `/${area}/policies/policy-elements`,
  createElement: `/${area}/policies/create-policies-elements`,
  element: (id: string) => `/${area}/policies/policy-elements-details/${id}`,
});

export const profilePaths = {
  list: '/cte/setting/profiles',
  detail: (name: string) => `/cte/setting/profiles-details/${encodeURIComponent(name)}`,
};
