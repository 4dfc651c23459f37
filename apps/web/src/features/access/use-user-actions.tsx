import { App, Descriptions, Select, Space, Typography } from 'antd';
import type { MenuProps } from 'antd';
import {
  deleteUsers,
  regenerateSecret,
  sendSdkUser,
  setPasswordChangeRequired,
  unbindUserUkey,
  unlockUser,
} from '../../api/access';
import { useConfirm } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { useT } from '../../i18n/i18n';
import { roleName } from '../../i18n/server-labels';
import type { OnceSecret } from './secret-modal';
import type { UserRow } from './user-forms';

/** The dialog open over the list, on which user. */
export type Dialog =
  | { kind: 'edit'; user: UserRow }
  | { kind: 'email'; user: UserRow }
  | { kind: 'password'; user: UserRow }
  | { kind: 'ip'; user: UserRow }
  | { kind: 'domains'; user: UserRow };

interface Options {
  /** The signed-in user: not offered to delete. */
  me: { id: string } | undefined;
  canManageDomains: boolean;
  setDialog: (dialog: Dialog) => void;
  setSecret: (secret: OnceSecret) => void;
  refresh: () => Promise<unknown>;
}

/** The "more" menu of a user's row: its items, and what each does (a dialog, a confirmation, a call). */
export function useUserActions({ me, canManageDomains, setDialog, setSecret, refresh }: Options) {
  const t = useT();
  const { message } = App.useApp();
  const confirmDialog = useConfirm();

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

  return { rowMenu, onMenu };
}
