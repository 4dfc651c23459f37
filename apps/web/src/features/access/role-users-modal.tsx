import { useState } from 'react';
import { assignRole, unassignRole } from '../../api/access';
import { MembersModal } from '../../components/members-modal';
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
  // The role as the last assign or unassign answered it.
  const [current, setCurrent] = useState<RoleRow | null>(role);
  if (role?.id !== current?.id) setCurrent(role);

  return (
    <MembersModal
      open={role !== null}
      title={t('access:role.usersTitle', { name: role?.name ?? '' })}
      members={current?.users ?? []}
      emptyText={t('access:role.noUsers')}
      canRemove={canWrite}
      canAdd={canWrite && canPick}
      picker={({ value, onChange, exclude, testId }) => (
        <UserPicker
          value={value}
          onChange={onChange}
          exclude={exclude}
          placeholder={t('access:role.chooseUsers')}
          style={{ width: '100%' }}
          data-testid={testId}
        />
      )}
      addText={t('access:role.assign')}
      removeConfirm={(user) =>
        t('access:role.unassignConfirm', { user: user.name, role: current?.name ?? '' })
      }
      onAdd={async (ids) => current && setCurrent(await assignRole(current.id, ids))}
      // e.g. the last Administrator keeps the role: the server's message is shown.
      onRemove={async (user) => current && setCurrent(await unassignRole(current.id, [user.id]))}
      onChanged={onChanged}
      onClose={onClose}
      testId="role-user"
    />
  );
}
