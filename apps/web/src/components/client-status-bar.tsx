import { useQuery } from '@tanstack/react-query';
import { Card, Col, Row, Statistic } from 'antd';
import type { ClientStatus } from '@ksp/contracts';
import { useT } from '../i18n/i18n';
import { useViewSearchParams } from './view-activity';

export type CountKey = 'total' | 'errors' | 'warnings' | 'healthy';
/** The status bar's figures and the status filter each sets (total clears it). */
const bar: { key: CountKey; status: ClientStatus | null; color?: string }[] = [
  { key: 'total', status: null },
  { key: 'errors', status: 'error', color: '#cf1322' },
  { key: 'warnings', status: 'warning', color: '#d48806' },
  { key: 'healthy', status: 'healthy', color: '#389e0d' },
];

/**
 * The status bar: total / errors / warnings / healthy, each a click that filters the list.
 * The TDE and RDM client pages reuse it with their own list call.
 */
export function ClientStatusBar({
  queryKey,
  fetchCounts,
}: {
  queryKey: readonly unknown[];
  fetchCounts: () => Promise<{ counts: Record<CountKey, number> }>;
}) {
  const t = useT();
  const [params, setParams] = useViewSearchParams();
  const current = params.get('status');
  const counts = useQuery({
    queryKey: [...queryKey, 'counts'],
    queryFn: fetchCounts,
  }).data?.counts;
  const choose = (status: ClientStatus | null) => {
    const next = new URLSearchParams(params);
    if (status) next.set('status', status);
    else next.delete('status');
    next.delete('page');
    setParams(next);
  };
  return (
    <Row gutter={[12, 12]} style={{ marginBottom: 12 }} data-testid="client-status-bar">
      {bar.map(({ key, status, color }) => {
        const active = (status ?? null) === (current ?? null);
        return (
          <Col key={key} xs={12} sm={12} md={6}>
            <Card
              size="small"
              hoverable
              onClick={() => choose(status)}
              data-testid={`client-count-${key}`}
              style={active ? { borderColor: color ?? '#1677ff' } : undefined}
              role="button"
              aria-pressed={active}
            >
              <Statistic
                title={t(`kadp:counts.${key}`)}
                value={counts?.[key] ?? '-'}
                {...(color ? { styles: { content: { color } } } : {})}
              />
            </Card>
          </Col>
        );
      })}
    </Row>
  );
}
