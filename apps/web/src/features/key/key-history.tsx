import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Space, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import {
  keyAudit,
  keyKeys,
  keyVersions,
  type KeyAuditEntry,
  type KeyRow,
  type KeyVersion,
} from '../../api/key';
import { formatDateTime } from '../../components/date-time';
import { useT } from '../../i18n/i18n';
import { mono } from './key-display';
import { auditActionOf } from './key-model';

const AUDIT_PAGE_SIZE = 10;

/** The versions of a key, newest first, with their check values. */
export function VersionsTable({ row }: { row: KeyRow }) {
  const t = useT();
  const versions = useQuery({ queryKey: keyKeys.versions(row.id), queryFn: () => keyVersions(row.id) });
  const columns: ColumnsType<KeyVersion> = [
    {
      title: t('keys:versions.version'),
      dataIndex: 'version',
      render: (version: number) => (
        <Space size={4}>
          {version}
          {version === row.version && <Tag color="green">{t('keys:versions.current')}</Tag>}
        </Space>
      ),
    },
    {
      title: t('keys:versions.check'),
      key: 'check',
      render: (_value, version) => (
        <Typography.Text style={mono}>{version.kcv ?? version.fingerprint ?? '—'}</Typography.Text>
      ),
    },
    {
      title: t('keys:versions.created'),
      dataIndex: 'created_at',
      render: (value: string) => formatDateTime(value),
    },
    {
      title: t('keys:versions.destroyed'),
      dataIndex: 'destroyed',
      render: (destroyed: boolean) =>
        destroyed ? (
          <Tag>{t('keys:detail.yes')}</Tag>
        ) : (
          <Typography.Text>{t('keys:detail.no')}</Typography.Text>
        ),
    },
  ];
  return (
    <Table<KeyVersion>
      rowKey="version"
      columns={columns}
      dataSource={versions.data ?? []}
      loading={versions.isFetching}
      pagination={false}
      size="small"
      scroll={{ x: 'max-content' }}
      data-testid="key-versions"
    />
  );
}

/** The audit records of a key, paged. */
export function AuditTable({ row }: { row: KeyRow }) {
  const t = useT();
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(AUDIT_PAGE_SIZE);
  const audit = useQuery({
    queryKey: keyKeys.audit(row.id, page, pageSize),
    queryFn: () => keyAudit(row.id, page, pageSize),
    placeholderData: keepPreviousData,
  });
  const columns: ColumnsType<KeyAuditEntry> = [
    { title: t('keys:audit.at'), dataIndex: 'at', render: (value: string) => formatDateTime(value) },
    { title: t('keys:audit.user'), dataIndex: 'username' },
    {
      title: t('keys:audit.action'),
      dataIndex: 'action',
      render: (action: string) => {
        const known = auditActionOf(action);
        return known ? t(`keys:audit.actions.${known}`) : action;
      },
    },
    {
      title: t('keys:audit.result'),
      dataIndex: 'result',
      render: (result: string) => (
        <Tag color={result === 'success' ? 'green' : 'red'}>
          {result === 'success' || result === 'failure' ? t(`keys:audit.results.${result}`) : result}
        </Tag>
      ),
    },
    { title: t('keys:audit.ip'), dataIndex: 'source_ip' },
    // Identical operations committed together share one record.
    { title: t('keys:audit.count'), dataIndex: 'count', align: 'right' as const },
  ];
  return (
    <Table<KeyAuditEntry>
      rowKey="id"
      columns={columns}
      dataSource={audit.data?.data ?? []}
      loading={audit.isFetching}
      size="small"
      scroll={{ x: 'max-content' }}
      data-testid="key-audit"
      pagination={{
        current: page,
        pageSize,
        total: audit.data?.total ?? 0,
        showSizeChanger: true,
        showTotal: (total) => t('common:table.total', { count: total }),
        onChange: (next, size) => {
          setPage(size === pageSize ? next : 1);
          setPageSize(size);
        },
      }}
    />
  );
}
