import { useState } from 'react';
import { DownOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Descriptions, Dropdown, Select, Space, Tag, Tooltip, Typography } from 'antd';
import type { MenuProps } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api } from '@ksp/contracts';
import {
  accessKeys,
  allRoles,
  deleteUsers,
  listUsers,
  regenerateSecret,
  sendSdkUser,
  setPasswordChangeRequired,
  unbindUserUkey,
  unlockUser,
  updateUser,
  updateUserEmail,
  updateUserIp,
} from '../../api/access';
import { domainKeys } from '../../api/domain';
import { useSignedIn } from '../../api/session';
import { RowActions, useColumnKit, withWidths } from '../../components/columns';
import { formatDateTime } from '../../components/date-time';
import { useConfirm } from '../../components/confirm-delete';
import { FormModal } from '../../components/form-modal';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { roleName } from '../../i18n/server-labels';
import { formatIpRules, ipRulesRule, parseIpRules } from './ip-rules';
import { RoleSelect } from './option-selects';
import { SecretModal, type OnceSecret } from './secret-modal';
import { TimeAgo } from './time-text';
import { CreateUserModal, ResetPasswordModal, type UserRow } from './user-forms';
import { UserDomainsModal } from './user-domains-modal';

type Dialog =
  | { kind: 'edit'; user: UserRow }
  | { kind: 'email'; user: UserRow }
  | { kind: 'password'; user: UserRow }
  | { kind: 'ip'; user: UserRow }
  | { kind: 'domains'; user: UserRow };

/** Access management › users: the users of the current domain and everything done to them. */
export default function UserPage() {
  const t = useT();
  const kit = useColumnKit<UserRow>();
  const { message } = App.useApp();
  const confirmDialog = useConfirm();
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

  /** Runs a row action; the client shows a refusal (e.g. the last Administrator) itself. */
  const act = async (work: () => Promise<unknown>, done?: string) => {
    try {
      await work();
      void message.success(done ?? t('common:feedback.saved'));
    } catch {
      // The server's message was shown.
    }
    await refresh();
  };

  const confirm = (title: string, content: string, onOk: () => Promise<unknown>, danger = false) =>
    confirmDialog({ title, content, okText: t('access:common.confirm'), danger, onOk });

  const showSecret = async (user: UserRow, roleId?: string) => {
    try {
      const { app_secret } = await regenerateSecret(user.id, roleId);
      setSecret({ title: t('access:user.secretTitle', { name: user.username }), secret: app_secret });
    } catch {
      // Shown by the client.
    }
    await refresh();
  };

  const showSdkProfile = async (user: UserRow) => {
    try {
      const profile = await sendSdkUser(user.id);
      const loginUrl = new URL(profile.login_path, window.location.origin).toString();
      const json = JSON.stringify(
        {
          username: profile.username,
          app_secret: profile.app_secret,
          login_url: loginUrl,
          issued_at: profile.issued_at,
        },
        null,
        2,
      );
      setSecret({
        title: t('access:user.sdkTitle', { name: user.username }),
        secret: profile.app_secret,
        copyText: json,
        details: (
          <>
            <Descriptions
              column={1}
              size="small"
              bordered
              items={[
                { key: 'username', label: t('access:user.fields.username'), children: profile.username },
                {
                  key: 'login-url',
                  label: t('access:user.sdk.loginUrl'),
                  children: <Typography.Text copyable>{loginUrl}</Typography.Text>,
                },
                {
                  key: 'issued-at',
                  label: t('access:user.sdk.issuedAt'),
                  children: formatDateTime(profile.issued_at),
                },
              ]}
            />
            <Typography.Text type="secondary">{t('access:user.sdk.usage')}</Typography.Text>
          </>
        ),
      });
    } catch {
      // Shown by the client.
    }
    await refresh();
  };

  const rowMenu = (user: UserRow): MenuProps['items'] => {
    const self = user.id === me?.id;
    const local = user.directory === null;
    const items: MenuProps['items'] = [
      { key: 'email', label: t('access:user.actions.email') },
      ...(local ? [{ key: 'password', label: t('access:user.actions.resetPassword') }] : []),
      ...(local
        ? [
            user.must_change_password
              ? { key: 'stop-require', label: t('access:user.actions.stopRequireChange') }
              : { key: 'require', label: t('access:user.actions.requireChange') },
          ]
        : []),
      ...(user.locked ? [{ key: 'unlock', label: t('access:user.actions.unlock') }] : []),
      { key: 'ip', label: t('access:user.actions.ipWhitelist') },
      { type: 'divider' as const },
      { key: 'secret', label: t('access:user.actions.regenerateSecret') },
      { key: 'sdk', label: t('access:user.actions.sdkProfile') },
      ...(user.ukey_bound ? [{ key: 'unbind', label: t('access:user.actions.unbindUkey') }] : []),
      ...(canManageDomains ? [{ key: 'domains', label: t('access:user.actions.domains') }] : []),
      { type: 'divider' as const },
      { key: 'delete', label: t('common:actions.delete'), danger: true, disabled: self },
    ];
    return items;
  };

  const onMenu = (user: UserRow, key: string) => {
    switch (key) {
      case 'email':
      case 'password':
      case 'ip':
      case 'domains':
        setDialog({ kind: key, user });
        return;
      case 'require':
        confirm(
          t('access:user.confirm.require', { name: user.username }),
          t('access:user.confirm.requireText'),
          () => act(() => setPasswordChangeRequired(user.id, true)),
        );
        return;
      case 'stop-require':
        confirm(t('access:user.confirm.stopRequire', { name: user.username }), '', () =>
          act(() => setPasswordChangeRequired(user.id, false)),
        );
        return;
      case 'unlock':
        void act(() => unlockUser(user.id), t('access:user.unlocked', { name: user.username }));
        return;
      case 'secret': {
        // The application token carries one of the user's roles, or all of them.
        const choice: { roleId?: string } = {};
        confirmDialog({
          title: t('access:user.confirm.secret', { name: user.username }),
          content: (
            <Space direction="vertical" style={{ width: '100%' }}>
              <Typography.Text>{t('access:user.confirm.secretText')}</Typography.Text>
              <Typography.Text type="secondary">{t('access:user.secretRole.label')}</Typography.Text>
              <Select
                data-testid="secret-role"
                allowClear
                style={{ width: '100%' }}
                placeholder={t('access:user.secretRole.all')}
                options={user.roles.map((r) => ({ value: r.id, label: roleName(r.name) }))}
                onChange={(value?: string) => {
                  choice.roleId = value;
                }}
              />
            </Space>
          ),
          okText: t('access:common.confirm'),
          onOk: () => showSecret(user, choice.roleId),
        });
        return;
      }
      case 'sdk':
        confirm(
          t('access:user.confirm.sdk', { name: user.username }),
          t('access:user.confirm.secretText'),
          () => showSdkProfile(user),
        );
        return;
      case 'unbind':
        confirm(
          t('access:user.confirm.unbind', { name: user.username }),
          t('access:user.confirm.unbindText'),
          () => act(() => unbindUserUkey(user.id)),
          true,
        );
        return;
      case 'delete':
        confirm(
          t('access:user.confirm.delete', { name: user.username }),
          t('common:confirm.deleteContent'),
          () => act(() => deleteUsers([user.id]), t('common:feedback.deleted')),
          true,
        );
        return;
    }
  };

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
