import type { LogRow } from '../../api/log';
import { formatDateTime } from '../../components/date-time';
import { useT } from '../../i18n/i18n';
import { auditAction } from '../../i18n/server-labels';
import { SeverityTag } from '../../components/severity-tag';
import { ActionText, RecordDetailDrawer, ResultTag } from './log-display';

/** Every field of one server record, its details as JSON. Records never change: the row is the record. */
export function LogDetailDrawer({ record, onClose }: { record: LogRow; onClose: () => void }) {
  const t = useT();
  const text = (value: string | null) => value || t('log:none');
  return (
    <RecordDetailDrawer
      record={record}
      onClose={onClose}
      title={t('log:detailTitle', { action: auditAction(record.action) })}
      testId="log-detail"
      labels={{ id: t('log:fields.id'), details: t('log:fields.details') }}
      items={[
        { key: 'at', label: t('log:fields.at'), children: formatDateTime(record.at) },
        {
          key: 'severity',
          label: t('log:fields.severity'),
          children: <SeverityTag severity={record.severity} />,
        },
        { key: 'action', label: t('log:fields.action'), children: <ActionText record={record} /> },
        { key: 'code', label: t('log:fields.actionCode'), children: <code>{record.action}</code> },
        { key: 'target', label: t('log:fields.target'), children: text(record.target) },
        { key: 'result', label: t('log:fields.result'), children: <ResultTag result={record.result} /> },
        { key: 'username', label: t('log:fields.username'), children: text(record.username) },
        { key: 'domain', label: t('log:fields.domain'), children: text(record.domain_name) },
        { key: 'source', label: t('log:fields.source'), children: t(`log:sources.${record.source}`) },
        { key: 'ip', label: t('log:fields.ip'), children: text(record.ip) },
        { key: 'count', label: t('log:fields.count'), children: record.count },
        { key: 'object', label: t('log:fields.objectId'), children: text(record.object_id) },
      ]}
    />
  );
}
