import { useState } from 'react';
import { App, Button, Flex, Modal, Popconfirm } from 'antd';
import { assignRole, unassignRole } from '../../api/access';
import { NameList } from '../../components/name-list';
import { useT } from '../../i18n/i18n';
import { UserPicker } from './option-selects';
import type { RoleRow } from './role-editor';

/** The users holding a role: give it to more users, take it from some. */
export function RoleUsersModal({
  role,
  canWrite,
  canPick,
  onClose,
  onChanged,
}: {
  role: RoleRow | null;
  canWrite: boolean;
  /** The user list may be read (to pick users to give the role to). */
  canPick: boolean;
  onClose: () => void;
  onChanged: () => Promise<unknown>;
}) {
  const t = useT();
  const { message } = App.useApp();
  const [current, setCurrent] = useState<RoleRow | null>(role);
  const [picked, setPicked] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  // A new role opened: start from its row.
  if (role?.id !== current?.id) {
    setCurrent(role);
    setPicked([]);
  }
  const users = current?.users ?? [];

  const assign = async () => {
    if (!current || picked.length === 0) return;
    setBusy(true);
    try {
      setCurrent(await assignRole(current.id, picked));
      setPicked([]);
      void message.success(t('common:feedback.saved'));
      await onChanged();
    } catch {
      // Shown by the client.
    } finally {
      setBusy(false);
    }
  };

  const unassign = async (userId: string) => {
    if (!current) return;
    try {
      setCurrent(await unassignRole(current.id, [userId]));
      void message.success(t('common:feedback.saved'));
      await onChanged();
    } catch {
      // e.g. the last Administrator keeps the role: the server's message was shown.
    }
  };

  return (
    <Modal
      open={role !== null}
      title={t('access:role.usersTitle', { name: role?.name ?? '' })}
      onCancel={onClose}
      footer={<Button onClick={onClose}>{t('access:common.close')}</Button>}
      destroyOnHidden
      width={560}
    >
      <NameList
        items={users}

        testId="role-user-list"
        emptyText={t('access:role.noUsers')}
        action={
          canWrite
            ? (user) => (
                <Popconfirm
                  title={t('access:role.unassignConfirm', { user: user.name, role: current?.name ?? '' })}
                  okText={t('access:common.remove')}
                  cancelText={t('common:actions.cancel')}
                  okButtonProps={{ danger: true, 'data-testid': 'role-unassign-ok' }}
                  onConfirm={() => unassign(user.id)}
                >
                  <Button type="link" size="small" danger data-testid={`role-unassign-${user.name}`}>
                    {t('access:common.remove')}
                  </Button>
                </Popconfirm>
              )
            : undefined
        }
      />
      {canWrite && canPick && (
        <Flex gap={8} wrap style={{ marginTop: 16 }}>
          <UserPicker
            value={picked}
            onChange={setPicked}
            exclude={users.map((user) => user.id)}
            placeholder={t('access:role.chooseUsers')}
            style={{ flex: '1 1 240px', minWidth: 0 }}
            data-testid="role-assign-select"
          />
          <Button type="primary" loading={busy} onClick={() => void assign()} data-testid="role-assign">
            {t('access:role.assign')}
          </Button>
        </Flex>
      )}
    </Modal>
  );
}
