import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Form, Input, Modal, Table, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import {
  ANY_LOCK_CODE,
  api,
  licenseFeatures,
  type FeatureUsage,
  type LicenseOverview,
  type LicenseRow,
  type LicenseStatus,
} from '@ksp/contracts';
import { activateLicense, deleteLicense, fetchLicenses, fetchLockdata, licenseKeys } from '../../api/license';
import { StatusTag } from '../../components/columns';
import { useConfirmDelete } from '../../components/confirm-delete';
import { CopyButton } from '../../components/copy-button';
import { formatDateTime } from '../../components/date-time';
import { formatThousands } from '../../components/number-format';
import { useCanCall } from '../../components/permissions';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';

const statusColors: Record<LicenseStatus, string> = {
  active: 'green',
  expired: 'red',
  not_yet_valid: 'orange',
};
const stateAlert: Record<LicenseOverview['state'], 'info' | 'success' | 'error'> = {
  community: 'info',
  licensed: 'success',
  expired: 'error',
};
const wrap = { wordBreak: 'break-all' } as const;

/** The activation dialog: paste the licence characters; a refusal shows inside it. */
function ActivateModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ license: string }>();
  const [refusal, setRefusal] = useState<string | null>(null);
  const submit = useSubmit();
  const close = () => {
    form.resetFields();
    setRefusal(null);
    onClose();
  };
  const onOk = async () => {
    // Checked before the submit: a refused check does not start the re-click lock.
    const { license } = await form.validateFields().catch(() => ({ license: null }));
    if (license === null) return;
    await submit.run(async () => {
      setRefusal(null);
      try {
        const row = await activateLicense(license);
        void message.success(t('license:activated', { id: row.id }));
        await queryClient.invalidateQueries({ queryKey: licenseKeys.all });
        close();
      } catch (error) {
        setRefusal(error instanceof Error ? error.message : String(error));
        throw error;
      }
    });
  };
  return (
    <Modal
      open={open}
      title={t('license:activateTitle')}
      okText={t('license:activate')}
      cancelText={t('common:actions.cancel')}
      onOk={() => void onOk()}
      onCancel={close}
      okButtonProps={{ ...submit.buttonProps, 'data-testid': 'license-activate-ok' }}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" onValuesChange={() => setRefusal(null)}>
        <Typography.Paragraph type="secondary">{t('license:activateHint')}</Typography.Paragraph>
        <Form.Item
          name="license"
          label={t('license:activateField')}
          rules={[{ required: true, whitespace: true, message: t('license:required') }]}
          validateStatus={refusal ? 'error' : undefined}
          help={refusal ?? undefined}
        >
          <Input.TextArea
            autoSize={{ minRows: 4, maxRows: 10 }}
            spellCheck={false}
            style={{ fontFamily: 'monospace' }}
            data-testid="license-text"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** Settings › licenses: the lock code, each feature's total and usage, the activated licences. */
export default function LicensePage() {
  const t = useT();
  const canWrite = useCanCall(api.license.activate);
  const confirmDelete = useConfirmDelete();
  const [activating, setActivating] = useState(false);
  const list = useQuery({ queryKey: licenseKeys.list, queryFn: fetchLicenses });
  const lock = useQuery({ queryKey: [...licenseKeys.all, 'lockdata'], queryFn: fetchLockdata });
  const data = list.data;
  const date = (value: string | null) => (value ? formatDateTime(value) : '—');
  const statusLabels: Record<LicenseStatus, string> = {
    active: t('license:statuses.active'),
    expired: t('license:statuses.expired'),
    not_yet_valid: t('license:statuses.not_yet_valid'),
  };

  const featureColumns: ColumnsType<FeatureUsage> = [
    {
      key: 'feature',
      title: t('license:columns.feature'),
      render: (_, row) => t(`license:features.${row.feature}`),
    },
    {
      key: 'total',
      title: t('license:columns.total'),
      render: (_, row) => (
        <span data-testid={`license-total-${row.feature}`}>{formatThousands(row.total)}</span>
      ),
    },
    {
      key: 'used',
      title: t('license:columns.used'),
      render: (_, row) => {
        const text = <span data-testid={`license-used-${row.feature}`}>{formatThousands(row.used)}</span>;
        return row.feature === 'keys' ? text : <Tooltip title={t('license:notCounted')}>{text}</Tooltip>;
      },
    },
    { key: 'start', title: t('license:columns.start'), render: (_, row) => date(row.not_before) },
    { key: 'end', title: t('license:columns.end'), render: (_, row) => date(row.not_after) },
    {
      key: 'source',
      title: t('license:columns.source'),
      render: (_, row) => (
        <Tag
          color={row.source === 'license' ? 'blue' : 'default'}
          data-testid={`license-source-${row.feature}`}
        >
          {t(`license:sources.${row.source}`)}
        </Tag>
      ),
    },
  ];

  const licenseColumns: ColumnsType<LicenseRow> = [
    { key: 'id', title: t('license:columns.id'), dataIndex: 'id' },
    { key: 'customer', title: t('license:columns.customer'), dataIndex: 'customer' },
    {
      key: 'status',
      title: t('license:columns.status'),
      render: (_, row) => (
        <StatusTag
          value={row.status}
          colors={statusColors}
          labels={statusLabels}
          testId={`license-status-${row.id}`}
        />
      ),
    },
    { key: 'start', title: t('license:columns.start'), render: (_, row) => date(row.not_before) },
    { key: 'end', title: t('license:columns.end'), render: (_, row) => date(row.not_after) },
    {
      key: 'lock',
      title: t('license:columns.lockCode'),
      render: (_, row) => (row.lock_code === ANY_LOCK_CODE ? t('license:anyLockCode') : row.lock_code),
    },
    {
      key: 'features',
      title: t('license:columns.grants'),
      render: (_, row) =>
        licenseFeatures
          .filter((f) => row.features[f] !== undefined)
          .map((f) => `${t(`license:features.${f}`)} ${formatThousands(row.features[f] ?? 0)}`)
          .join(', '),
    },
    {
      key: 'text',
      title: t('license:columns.text'),
      width: 220,
      render: (_, row) => (
        <Typography.Text
          copyable={{ text: row.text }}
          ellipsis={{ tooltip: row.text }}
          style={{ ...wrap, maxWidth: 200, fontFamily: 'monospace' }}
        >
          {row.text}
        </Typography.Text>
      ),
    },
    ...(canWrite
      ? [
          {
            key: 'actions',
            title: t('license:columns.actions'),
            render: (_: unknown, row: LicenseRow) => (
              <Button
                type="link"
                danger
                data-testid={`license-delete-${row.id}`}
                onClick={() =>
                  confirmDelete({
                    title: t('license:deleteConfirm', { id: row.id }),
                    content: t('license:deleteContent'),
                    remove: () => deleteLicense(row.row_id),
                    refresh: () => list.refetch(),
                    testId: 'license-delete-ok',
                  })
                }
              >
                {t('common:actions.delete')}
              </Button>
            ),
          },
        ]
      : []),
  ];

  return (
    <Flex vertical gap={16}>
      <Card title={t('license:lockTitle')}>
        <Flex vertical gap={8}>
          <Flex wrap gap={12} align="center">
            <Typography.Text
              strong
              style={{ fontFamily: 'monospace', fontSize: 18, ...wrap }}
              data-testid="license-lock-code"
            >
              {lock.data?.lock_code ?? data?.lock_code ?? '…'}
            </Typography.Text>
            {lock.data && <Tag>{t(`license:bindTypes.${lock.data.bind_type}`)}</Tag>}
            {(lock.data ?? data) && (
              <CopyButton text={lock.data?.lock_code ?? data?.lock_code ?? ''} testId="license-copy-lock" />
            )}
          </Flex>
          <Typography.Text type="secondary">{t('license:lockHint')}</Typography.Text>
        </Flex>
      </Card>
      {data && (
        <Alert
          type={stateAlert[data.state]}
          showIcon
          title={t(`license:state.${data.state}`)}
          data-testid="license-state"
        />
      )}
      <Card title={t('license:featuresTitle')}>
        <Table<FeatureUsage>
          rowKey="feature"
          size="small"
          loading={list.isLoading}
          columns={featureColumns}
          dataSource={data?.features ?? []}
          pagination={false}
          scroll={{ x: 'max-content' }}
          data-testid="license-features"
        />
      </Card>
      <Card
        title={t('license:licensesTitle')}
        extra={
          canWrite ? (
            <Button type="primary" onClick={() => setActivating(true)} data-testid="license-activate">
              {t('license:activate')}
            </Button>
          ) : null
        }
      >
        {!canWrite && (
          <Alert type="info" showIcon title={t('license:readOnly')} style={{ marginBottom: 16 }} />
        )}
        <Table<LicenseRow>
          rowKey="row_id"
          size="small"
          loading={list.isLoading}
          columns={licenseColumns}
          dataSource={data?.licenses ?? []}
          pagination={false}
          scroll={{ x: 'max-content' }}
          locale={{ emptyText: t('license:empty') }}
          data-testid="license-list"
        />
      </Card>
      <ActivateModal open={activating} onClose={() => setActivating(false)} />
    </Flex>
  );
}
