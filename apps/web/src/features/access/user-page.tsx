import { useState } from 'react';
import { DownOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Dropdown, Space, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api } from '@ksp/contracts';
import {
  accessKeys,
  allRoles,
  deleteUsers,
  listUsers,
  updateUser,
  updateUserEmail,
  updateUserIp,
} from '../../api/access';
import { domainKeys } from '../../api/domain';
import { useSignedIn } from '../../api/session';
import { RowActions, useColumnKit, withWidths } from '../../components/columns';
import { formatDateTime } from '../../components/date-time';
import { FormModal } from '../../components/form-modal';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { roleName } from '../../i18n/server-labels';
import { formatIpRules, ipRulesRule, parseIpRules } from '../../components/ip-rules';
import { RoleSelect } from './option-selects';
import { SecretModal, type OnceSecret } from './secret-modal';
import { TimeAgo } from './time-text';
import { CreateUserModal, ResetPasswordModal, type UserRow } from './user-forms';
import { UserDomainsModal } from './user-domains-modal';
import { useUserActions, type Dialog } from './use-user-actions';

/** Access management › users: the users of the current domain and everything done to them. */
export default function UserPage() {
  const t = useT();
  const kit = useColumnKit<UserRow>();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const me = useSignedIn()?.userinfo;
  const canWrite = useCanCall(api.user.update);
  const canWriteDomains = useCanCall(api.user.domainAddUser);
  const canReadDomains = useCanCall(api.domain.list);
  const canManageDomains = canWriteDomains && canReadDomains;
  const canReadRoles = useCanCall(api.role.list);
  const [creating, setCreating] = useState(false);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [secret, setSecret] = useState<OnceSecret | null>(null);
  const roles = useQuery({
    queryKey: accessKeys.roleOptions,
    queryFn: allRoles,
    enabled: canReadRoles,
    staleTime: 30_000,
  });

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: accessKeys.users }),
      queryClient.invalidateQueries({ queryKey: accessKeys.roles }),
      queryClient.invalidateQueries({ queryKey: domainKeys.all }),
    ]);

  const close = () => setDialog(null);
  const dialogUser = (kind: Dialog['kind']) => (dialog?.kind === kind ? dialog.user : null);

  const { rowMenu, onMenu } = useUserActions({ me, canManageDomains, setDialog, setSecret, refresh });

  const columns: ColumnsType<UserRow> = [
    kit.name(t('access:user.fields.username'), 'username', (name, user) => (
      <Space size={4} wrap>
        <Typography.Text strong>{name}</Typography.Text>
        {user.id === me?.id && <Tag color="blue">{t('access:user.you')}</Tag>}
        {user.directory && <Tag color="purple">{t('access:user.directory', { name: user.directory })}</Tag>}
      </Space>
    )),
    {
      title: t('access:user.fields.status'),
      dataIndex: 'locked',
      render: (locked: boolean, user) => (
        <Space size={[4, 4]} wrap>
          <Tag color={locked ? 'red' : 'green'} data-testid="user-status">
            {locked ? t('access:user.status.locked') : t('access:user.status.active')}
          </Tag>
          {user.must_change_password && <Tag color="orange">{t('access:user.status.mustChange')}</Tag>}
          {user.ip_whitelist.length > 0 && (
            <Tooltip title={user.ip_whitelist.join(', ')}>
              <Tag>{t('access:user.status.ipRules', { count: user.ip_whitelist.length })}</Tag>
            </Tooltip>
          )}
        </Space>
      ),
    },
    kit.text(t('access:user.fields.email'), 'email'),
    { title: t('access:user.fields.phone'), dataIndex: 'phone', render: (v: string) => v || '-' },
    {
      title: t('access:user.fields.roles'),
      dataIndex: 'roles',
      render: (list: UserRow['roles']) => (
        <Space size={[4, 4]} wrap>
          {list.map((role) => (
            <Tag key={role.id}>{roleName(role.name)}</Tag>
          ))}
        </Space>
      ),
    },
    {
      title: t('access:user.fields.domains'),
      dataIndex: 'domains',
      render: (list: UserRow['domains']) => (
        <Space size={[4, 4]} wrap>
          {list.map((domain) => (
            <Tag key={domain.id} color="geekblue">
              {domain.name}
            </Tag>
          ))}
        </Space>
      ),
    },
    {
      title: t('access:user.fields.ukey'),
      dataIndex: 'ukey_bound',
      render: (bound: boolean, user) =>
        bound ? (
          <Tooltip title={user.ukey_serial}>
            <Tag color="green" data-testid="user-ukey-bound">
              {t('access:ukey.bound')}
              {user.ukey_serial ? ` · ${user.ukey_serial}` : ''}
            </Tag>
          </Tooltip>
        ) : (
          <Tag>{t('access:ukey.unbound')}</Tag>
        ),
    },
    {
      title: t('access:user.fields.lastLogin'),
      dataIndex: 'last_login_at',
      render: (value: string | null) => <TimeAgo value={value} emptyText={t('access:time.never')} />,
    },
    { title: t('access:user.fields.loginCount'), dataIndex: 'login_count', align: 'right' },
    {
      title: t('access:user.fields.lastFailedLogin'),
      dataIndex: 'last_failed_login_at',
      render: (value: string | null, user) =>
        value ? (
          <Tooltip title={t('access:user.failedCount', { count: user.failed_login_count })}>
            <span>{formatDateTime(value)}</span>
          </Tooltip>
        ) : (
          '-'
        ),
    },
    kit.time(t('access:common.createdAt'), 'created_at'),
  ];

  if (canWrite) {
    columns.push(
      kit.actions((user) => (
        <RowActions
          items={[
            {
              label: t('common:actions.edit'),
              onClick: () => setDialog({ kind: 'edit', user }),
              testId: `user-edit-${user.username}`,
            },
          ]}
        >
          <Dropdown
            trigger={['click']}
            menu={{ items: rowMenu(user), onClick: ({ key }) => onMenu(user, key) }}
          >
            <Button type="link" size="small" data-testid={`user-more-${user.username}`}>
              {t('access:common.more')} <DownOutlined />
            </Button>
          </Dropdown>
        </RowActions>
      )),
    );
  }

  // Widths for every column: the table scrolls by their sum, so no column ends under the
  // pinned actions; the status comes right after the name, on screen at 1280 px without
  // scrolling, and the e-mail is cut to its width (whole in a tooltip).
  const sized = withWidths(columns, {
    username: 200,
    locked: 150,
    email: 190,
    phone: 130,
    roles: 170,
    domains: 160,
    ukey_bound: 150,
    last_login_at: 150,
    login_count: 100,
    last_failed_login_at: 170,
    created_at: 170,
    operations: 150,
  });

  const editing = dialogUser('edit');
  const emailUser = dialogUser('email');
  const ipUser = dialogUser('ip');

  return (
    <>
      <ListPage<UserRow>
        queryKey={accessKeys.users}
        fetchPage={({ page, page_size, filters }) =>
          listUsers({
            page,
            page_size,
            username: filters.username,
            role_id: filters.role_id,
            status: filters.status === 'active' || filters.status === 'locked' ? filters.status : undefined,
          })
        }
        rowKey="id"
        columns={sized}
        filters={[
          { name: 'username', label: t('access:user.fields.username') },
          ...(canReadRoles
            ? [
                {
                  name: 'role_id',
                  label: t('access:user.fields.role'),
                  options: (roles.data ?? []).map((role) => ({ value: role.id, label: role.name })),
                },
              ]
            : []),
          {
            name: 'status',
            label: t('access:user.fields.status'),
            options: [
              { value: 'active', label: t('access:user.status.active') },
              { value: 'locked', label: t('access:user.status.locked') },
            ],
          },
        ]}
        toolbar={canWrite && <ListAddButton onClick={() => setCreating(true)} testId="user-add" />}
        onDelete={canWrite ? (ids) => deleteUsers(ids) : undefined}
        canSelect={(user) => user.id !== me?.id}
      />
      <CreateUserModal
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={async (user) => {
          void message.success(t('access:user.created', { name: user.username }));
          await refresh();
        }}
      />
      <FormModal<{ phone: string; role_ids: string[] }>
        open={editing !== null}
        title={t('access:user.editTitle', { name: editing?.username ?? '' })}
        schema={api.user.update.body}
        fields={[
          { name: 'phone', label: t('access:user.fields.phone'), testId: 'user-edit-phone' },
          {
            name: 'role_ids',
            label: t('access:user.fields.roles'),
            kind: 'custom',
            render: () => <RoleSelect data-testid="user-edit-roles" />,
            rules: [{ required: true, type: 'array', min: 1, message: t('access:user.rolesRequired') }],
            extra: editing?.directory ? t('access:user.directoryRolesHint') : undefined,
          },
        ]}
        initialValues={
          editing ? { phone: editing.phone, role_ids: editing.roles.map((r) => r.id) } : undefined
        }
        onSubmit={async (values) => {
          if (!editing) return;
          await updateUser({ id: editing.id, phone: values.phone?.trim() ?? '', role_ids: values.role_ids });
          void message.success(t('common:feedback.saved'));
          await refresh();
        }}
        onClose={close}
      />
      <FormModal<{ email: string }>
        open={emailUser !== null}
        title={t('access:user.emailTitle', { name: emailUser?.username ?? '' })}
        schema={api.user.updateEmail.body}
        fields={[{ name: 'email', label: t('access:user.fields.email'), testId: 'user-email-edit' }]}
        initialValues={emailUser ? { email: emailUser.email } : undefined}
        onSubmit={async ({ email }) => {
          if (!emailUser) return;
          await updateUserEmail(emailUser.id, email.trim());
          void message.success(t('common:feedback.saved'));
          await refresh();
        }}
        onClose={close}
      />
      <FormModal<{ ip_whitelist: string }>
        open={ipUser !== null}
        title={t('access:user.ipTitle', { name: ipUser?.username ?? '' })}
        fields={[
          {
            name: 'ip_whitelist',
            label: t('access:user.fields.ipWhitelist'),
            kind: 'textarea',
            extra: t('access:ip.hint'),
            rules: [ipRulesRule()],
            testId: 'user-ip-edit',
          },
        ]}
        initialValues={ipUser ? { ip_whitelist: formatIpRules(ipUser.ip_whitelist) } : undefined}
        onSubmit={async ({ ip_whitelist }) => {
          if (!ipUser) return;
          await updateUserIp(ipUser.id, parseIpRules(ip_whitelist).rules);
          void message.success(t('common:feedback.saved'));
          await refresh();
        }}
        onClose={close}
      />
      <ResetPasswordModal user={dialogUser('password')} onClose={close} />
      <UserDomainsModal user={dialogUser('domains')} onClose={close} />
      <SecretModal value={secret} onClose={() => setSecret(null)} />
    </>
  );
}
