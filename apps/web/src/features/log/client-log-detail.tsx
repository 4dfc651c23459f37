import type { ClientLogRow } from '../../api/log';
import { formatDateTime } from '../../components/date-time';
import { useT } from '../../i18n/i18n';
import { EffectTag, LevelTag } from './client-log-display';
import { RecordDetailDrawer } from './log-display';

/** Every field of one client record, its details as JSON. */
export function ClientLogDetailDrawer({ record, onClose }: { record: ClientLogRow; onClose: () => void }) {
  const t = useT();
  const text = (value: string) => value || t('log:none');
  const f = (name: Parameters<typeof fieldKey>[0]) => t(fieldKey(name));
  return (
    <RecordDetailDrawer
      record={record}
      onClose={onClose}
      title={t('log:client.detailTitle', { action: record.action })}
      testId="client-log-detail"
      labels={{ id: f('id'), details: f('details') }}
      items={[
        { key: 'seq', label: f('seq'), children: record.seq },
        { key: 'level', label: f('level'), children: <LevelTag level={record.level} /> },
        { key: 'received', label: f('receivedAt'), children: formatDateTime(record.received_at) },
        { key: 'at', label: f('at'), children: formatDateTime(record.at) },
        { key: 'action', label: f('action'), children: <code>{record.action}</code> },
        { key: 'effect', label: f('effect'), children: <EffectTag effect={record.effect} /> },
        { key: 'policy', label: f('policy'), children: text(record.policy) },
        { key: 'guardPoint', label: f('guardPoint'), children: text(record.guard_point) },
        { key: 'resource', label: f('resource'), children: text(record.resource) },
        { key: 'process', label: f('process'), children: text(record.process) },
        { key: 'osUser', label: f('osUser'), children: text(record.os_user) },
        { key: 'client', label: f('client'), children: text(record.client_name) },
        { key: 'os', label: f('clientOs'), children: text(record.client_os) },
        { key: 'cn', label: f('clientCn'), children: text(record.client_cn) },
        { key: 'serial', label: f('clientId'), children: <code>{record.client_id}</code> },
        { key: 'ip', label: f('ip'), children: text(record.ip) },
        { key: 'domain', label: f('domain'), children: text(record.domain_name) },
      ]}
    />
  );
}

const fieldKey = (
  name:
    | 'id'
    | 'seq'
    | 'level'
    | 'receivedAt'
    | 'at'
    | 'action'
    | 'effect'
    | 'policy'
    | 'guardPoint'
    | 'resource'
    | 'process'
    | 'osUser'
    | 'client'
    | 'clientOs'
    | 'clientCn'
    | 'clientId'
    | 'ip'
    | 'domain'
    | 'details',
) => `log:client.fields.${name}` as const;
