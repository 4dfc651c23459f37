import { useQuery } from '@tanstack/react-query';
import { Select, type SelectProps } from 'antd';
import { accessKeys, allRoles } from '../api/access';
import { roleName } from '../i18n/server-labels';

/** The select props of the cached role list (`api.role.list`), searched by label. */
function useRoleOptions() {
  const roles = useQuery({ queryKey: accessKeys.roleOptions, queryFn: allRoles, staleTime: 30_000 });
  return {
    showSearch: { optionFilterProp: 'label' },
    loading: roles.isFetching,
    options: (roles.data ?? []).map((role) => ({ value: role.id, label: roleName(role.name) })),
  };
}

/** Every role, several may be chosen (value: role ids). */
export function RoleSelect(props: Omit<SelectProps<string[]>, 'options' | 'mode'> & { mode?: 'multiple' }) {
  const options = useRoleOptions();
  return <Select mode="multiple" allowClear {...options} {...props} />;
}

/** One role (value: a role id): the user, LDAP and KMIP client forms. */
export function SingleRoleSelect(props: Omit<SelectProps<string>, 'options' | 'mode'>) {
  const options = useRoleOptions();
  return <Select {...options} {...props} />;
}
