import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { accessKeys, allRoles, deleteLdap, listLdap } from '../../api/access';
import { api } from '@ksp/contracts';
import { RowActions, useColumnKit } from '../../components/columns';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useConfirmDelete } from '../../components/confirm-delete';
import { useT } from '../../i18n/i18n';
import { LdapFormDrawer } from './ldap-form';
import { LdapTestModal, type LdapTestSource } from './ldap-test';
import type { LdapRow } from './ldap-values';

/** Access management › LDAP: directory connections, their test, and which groups get which roles. */
export default function LdapPage() {
  const t = useT();
  const kit = useColumnKit<LdapRow>();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.ldap.create);
  const canReadRoles = useCanCall(api.role.list);
  const [editing, setEditing] = useState<{ row: LdapRow | null } | null>(null);
  const [testing, setTesting] = useState<LdapTestSource | null>(null);
  const roles = useQuery({
    queryKey: accessKeys.roleOptions,
    queryFn: allRoles,
    enabled: canReadRoles,
    staleTime: 30_000,
  });
  const roleName = (id: string) => roles.data?.find((role) => role.id === id)?.name ?? id;

  const refresh = () => queryClient.invalidateQueries({ queryKey: accessKeys.ldap });

  const confirmDelete = useConfirmDelete();
  const remove = (row: LdapRow) =>
    confirmDelete({
      title: t('access:ldap.deleteConfirm', { name: row.name }),
      content: t('access:ldap.deleteText'),
      remove: () => deleteLdap([row.id]),
      refresh,
    });

  const columns: ColumnsType<LdapRow> = [
    kit.name(t('access:ldap.fields.name'), 'name'),
    {
      title: t('access:ldap.fields.url'),
      dataIndex: 'url',
      render: (url: string) => <Typography.Text code>{url}</Typography.Text>,
    },
    {
      title: t('access:ldap.fields.bindDn'),
      dataIndex: 'bind_dn',
      render: (v: string) => v || t('access:ldap.anonymous'),
    },
    { title: t('access:ldap.fields.userBaseDn'), dataIndex: 'user_base_dn' },
    {
      title: t('access:ldap.fields.verifyCertificate'),
      dataIndex: 'verify_certificate',
      render: (verify: boolean) => (
        <Tag color={verify ? 'green' : 'orange'}>{verify ? t('common:yes') : t('common:no')}</Tag>
      ),
    },
    {
      title: t('access:ldap.fields.mappings'),
      dataIndex: 'group_roles',
      align: 'right',
      render: (mapping: LdapRow['group_roles']) =>
        mapping.length === 0 ? (
          0
        ) : (
          <Tooltip title={mapping.map((m) => `${m.group} → ${roleName(m.role_id)}`).join('; ')}>
            <span data-testid="ldap-mapping-count">{mapping.length}</span>
          </Tooltip>
        ),
    },
    kit.time(t('access:common.updatedAt'), 'updated_at'),
  ];

  if (canWrite) {
    columns.push(
      kit.actions((row) => (
        <RowActions
          items={[
            {
              label: t('access:ldap.test'),
              onClick: () => setTesting({ id: row.id, name: row.name, values: null }),
              testId: `ldap-test-${row.name}`,
            },
            {
              label: t('common:actions.edit'),
              onClick: () => setEditing({ row }),
              testId: `ldap-edit-${row.name}`,
            },
            {
              label: t('common:actions.delete'),
              onClick: () => remove(row),
              testId: `ldap-delete-${row.name}`,
              danger: true,
            },
          ]}
        />
      )),
    );
  }

  return (
    <>
      <ListPage<LdapRow>
        queryKey={accessKeys.ldap}
        fetchPage={({ page, page_size, filters }) => listLdap({ page, page_size, name: filters.name })}
        rowKey="id"
        columns={columns}
        filters={[{ name: 'name', label: t('access:ldap.fields.name') }]}
        toolbar={canWrite && <ListAddButton onClick={() => setEditing({ row: null })} testId="ldap-add" />}
        onDelete={canWrite ? (ids) => deleteLdap(ids) : undefined}
      />
      <LdapFormDrawer
        open={editing !== null}
        row={editing?.row ?? null}
        onClose={() => setEditing(null)}
        onSaved={async (saved) => {
          void message.success(t('access:ldap.saved', { name: saved.name }));
          await refresh();
        }}
      />
      <LdapTestModal source={testing} onClose={() => setTesting(null)} />
    </>
  );
}
