import { useQuery } from '@tanstack/react-query';
import { Tag, type SelectProps } from 'antd';
import type { RoleOption } from '@ksp/contracts';
import { listRoleOptions, serverKeys } from '../../api/ssh-server';
import { PagedSelect } from '../../components/paged-select';
import { roleName } from '../../i18n/server-labels';

/** Roles of the domain, searched by name on the server (value: role ids, as `terminal_roles` holds them). */
export function TerminalRolePicker(props: Omit<SelectProps<string[]>, 'options' | 'mode'>) {
  return (
    <PagedSelect<RoleOption>
      mode="multiple"
      allowClear
      queryKey={serverKeys.roleOptions}
      fetchPage={(page, pageSize, search) =>
        listRoleOptions({ page, page_size: pageSize, ...(search.trim() ? { name: search.trim() } : {}) })
      }
      resolve={async (ids) =>
        (await listRoleOptions({ page: 1, page_size: ids.length, ids: ids.join(',') })).data
      }
      toOption={(role) => ({ value: role.id, label: roleName(role.name) })}
      {...props}
    />
  );
}

/** A server's terminal roles by name (an id no role of the domain has any more shows as it is). */
export function TerminalRoleTags({ ids }: { ids: string[] }) {
  const roles = useQuery({
    queryKey: [...serverKeys.roleOptions, 'named', ids],
    queryFn: () => listRoleOptions({ page: 1, page_size: ids.length, ids: ids.join(',') }),
    enabled: ids.length > 0,
  });
  if (!ids.length) return <>-</>;
  const names = new Map((roles.data?.data ?? []).map((role) => [role.id, roleName(role.name)]));
  return (
    <>
      {ids.map((id) => (
        <Tag key={id} data-testid="server-terminal-role">
          {names.get(id) ?? id}
        </Tag>
      ))}
    </>
  );
}
