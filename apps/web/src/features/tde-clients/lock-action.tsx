import { LockOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { App, Tag } from 'antd';
import type { TdeClientRow } from '@ksp/contracts';
import { agentClientKeys, lockAgentClient } from '../../api/tde-client';
import { useConfirm } from '../../components/confirm-delete';
import { useT } from '../../i18n/i18n';

/** The "Locked" tag of a TDE client whose agent refuses local changes of its configuration. */
export function LockedTag() {
  const t = useT();
  return (
    <Tag icon={<LockOutlined />} color="orange" data-testid="client-locked-tag">
      {t('tdeClient:lock.locked')}
    </Tag>
  );
}

/** Lock or unlock a TDE client after a confirmation (docs/modules.md#tde-and-rdm-clients `client_locked`). */
export function useLockAction(): (row: TdeClientRow) => void {
  const t = useT();
  const { message } = App.useApp();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  return (row) => {
    const locking = !row.client_locked;
    confirm({
      title: t(locking ? 'tdeClient:lock.lockTitle' : 'tdeClient:lock.unlockTitle', { name: row.name }),
      content: t(locking ? 'tdeClient:lock.lockContent' : 'tdeClient:lock.unlockContent'),
      okText: t(locking ? 'tdeClient:lock.lock' : 'tdeClient:lock.unlock'),
      testId: 'client-confirm-lock',
      onOk: async () => {
        await lockAgentClient(row.id, locking);
        void message.success(
          t(locking ? 'tdeClient:lock.lockedDone' : 'tdeClient:lock.unlockedDone', { name: row.name }),
        );
        await queryClient.invalidateQueries({ queryKey: agentClientKeys('cte').all });
      },
    });
  };
}
