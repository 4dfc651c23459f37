import { useQuery } from '@tanstack/react-query';
import { Select, type SelectProps } from 'antd';
import { accessKeys, listUsers } from '../../api/access';
import { allDomains, domainKeys } from '../../api/domain';
import { PagedSelect } from '../../components/paged-select';

export { RoleSelect, SingleRoleSelect } from '../../components/role-select';

type Props = Omit<SelectProps<string[]>, 'options' | 'mode'>;

/** Every domain, several may be chosen (value: domain ids). */
export function DomainSelect(props: Props) {
  const domains = useQuery({ queryKey: domainKeys.options, queryFn: allDomains, staleTime: 30_000 });
  return (
    <Select
      mode="multiple"
      allowClear
      showSearch={{ optionFilterProp: 'label' }}
      loading={domains.isFetching}
      options={(domains.data ?? []).map((domain) => ({ value: domain.id, label: domain.name }))}
      {...props}
    />
  );
}

/** Users picked from the server-paged user list, searched by name (value: user ids). */
export function UserPicker({
  exclude = [],
  ...props
}: Omit<SelectProps<string[]>, 'options' | 'mode'> & { exclude?: readonly string[] }) {
  return (
    <PagedSelect<{ id: string; username: string }>
      mode="multiple"
      allowClear
      queryKey={accessKeys.users}
      fetchPage={(page, pageSize, search) =>
        listUsers({ page, page_size: pageSize, ...(search.trim() ? { username: search.trim() } : {}) })
      }
      toOption={(user) => ({ value: user.id, label: user.username })}
      exclude={(user) => exclude.includes(user.id)}
      {...props}
    />
  );
}
