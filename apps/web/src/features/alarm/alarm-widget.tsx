import { useQuery } from '@tanstack/react-query';
import { Badge, Card, Empty, Flex, List, Statistic, Typography } from 'antd';
import { Link } from 'react-router';
import { alarmSeverities, type AlarmSeverity } from '@ksp/contracts';
import { alarmKeys, fetchAlarmSummary } from '../../api/alarm';
import { formatDateTime } from '../../components/date-time';
import { alarmsPath } from '../../config/paths';
import { useT } from '../../i18n/i18n';
import { SeverityTag } from '../../components/severity-tag';
import { CountedText } from './alarm-display';

const severityColors: Record<AlarmSeverity, string> = {
  WARNING: '#fa8c16',
  ERROR: '#f5222d',
  CRITICAL: '#c41d7f',
};

/**
 * The dashboard's alarm card: open alarms by severity and the latest open ones, each linking to
 * the log page's alarms tab. Shown to holders of `alarm:read` (the dashboard mounts it).
 */
export function AlarmWidget() {
  const t = useT();
  const summary = useQuery({
    queryKey: alarmKeys.summary,
    queryFn: fetchAlarmSummary,
    refetchInterval: 30_000,
  });
  const data = summary.data;
  return (
    <Card
      title={
        <Flex gap={8} align="center">
          {t('alarm:widget.title')}
          {data && data.total_open > 0 && <Badge count={data.total_open} data-testid="alarm-widget-total" />}
        </Flex>
      }
      extra={<Link to={alarmsPath}>{t('alarm:widget.viewAll')}</Link>}
      loading={summary.isPending}
      data-testid="alarm-widget"
    >
      {data && (
        <Flex vertical gap={16}>
          <Flex wrap gap={24}>
            {alarmSeverities.map((severity) => (
              <Statistic
                key={severity}
                title={t(`log:severities.${severity}`)}
                value={data.open[severity]}
                styles={{
                  content: { color: data.open[severity] > 0 ? severityColors[severity] : undefined },
                }}
                data-testid={`alarm-widget-${severity}`}
              />
            ))}
          </Flex>
          {data.latest.length === 0 ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('alarm:widget.none')} />
          ) : (
            <List
              size="small"
              header={<Typography.Text type="secondary">{t('alarm:widget.latest')}</Typography.Text>}
              dataSource={data.latest}
              renderItem={(alarm) => (
                <List.Item key={alarm.id} data-testid="alarm-widget-item">
                  <Flex wrap gap={8} align="center" style={{ width: '100%' }}>
                    <SeverityTag severity={alarm.severity} />
                    <Link to={alarmsPath}>
                      <Typography.Text strong>{alarm.rule_name}</Typography.Text>
                    </Link>
                    <Typography.Text type="secondary">
                      <CountedText alarm={alarm} />
                    </Typography.Text>
                    <Typography.Text type="secondary" style={{ marginInlineStart: 'auto' }}>
                      {formatDateTime(alarm.raised_at)}
                    </Typography.Text>
                  </Flex>
                </List.Item>
              )}
            />
          )}
        </Flex>
      )}
    </Card>
  );
}
