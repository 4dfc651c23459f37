import { Tag, Typography } from 'antd';
import type { DbClientRow } from '@ksp/contracts';
import { StatusTag } from '../../components/columns';
import { useT } from '../../i18n/i18n';

type State = 'enabled' | 'disabled';
const stateColors: Record<State, string> = { enabled: 'green', disabled: 'orange' };

/** Enabled or disabled, as a coloured tag. */
export function DbClientState({ row }: { row: Pick<DbClientRow, 'name' | 'enabled'> }) {
  const t = useT();
  return (
    <StatusTag<State>
      value={row.enabled ? 'enabled' : 'disabled'}
      colors={stateColors}
      labels={{ enabled: t('tdeDatabase:states.enabled'), disabled: t('tdeDatabase:states.disabled') }}
      testId={`db-state-${row.name}`}
    />
  );
}

/** The start of the current token as the server gives it (to tell tokens apart), or "No token" once it is revoked. */
export function DbTokenHint({ row }: { row: Pick<DbClientRow, 'name' | 'token_hint'> }) {
  const t = useT();
  return row.token_hint === null ? (
    <Tag color="red" data-testid={`db-token-${row.name}`}>
      {t('tdeDatabase:noToken')}
    </Tag>
  ) : (
    <Typography.Text style={{ fontFamily: 'monospace' }} data-testid={`db-token-${row.name}`}>
      {row.token_hint}
    </Typography.Text>
  );
}
