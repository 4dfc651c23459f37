import { Tag } from 'antd';
import type { ClientStatus } from '@ksp/contracts';
import { useT } from '../i18n/i18n';

const colors: Record<ClientStatus, string> = {
  healthy: 'green',
  warning: 'orange',
  error: 'red',
  revoked: 'default',
  deleted: 'default',
};

/** A client's status as a coloured tag. */
export function ClientStatusTag({ status }: { status: ClientStatus }) {
  const t = useT();
  return (
    <Tag color={colors[status]} data-testid={`client-status-${status}`}>
      {t(`kadp:statuses.${status}`)}
    </Tag>
  );
}
