import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Tag, Typography, App, Button } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import type { ColumnsType } from 'antd/es/table';
import { api } from '@ksp/contracts';
import {
  certKeys,
  deleteExternal,
  externalDetail,
  listExternal,
  uploadExternal,
  type ExternalCaRow,
} from '../../api/cert';
import { RowActions, StatusTag, useColumnKit } from '../../components/columns';
import { useConfirmDelete } from '../../components/confirm-delete';
import { DetailDrawer } from '../../components/detail-drawer';
import { FormModal } from '../../components/form-modal';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { createdAtItem, externalStatusColors, Hex, PemBlock, Validity, validityItems } from './cert-display';
import { fileStem, readCertFile, saveText } from './cert-files';
import { certFieldRules } from './cert-rules';
import { PemInput } from '../../components/pem-input';

type ExternalKind = ExternalCaRow['kind'];
const externalKinds: readonly ExternalKind[] = ['ca', 'certificate'];
const kindColors: Record<ExternalKind, string> = { ca: 'blue', certificate: 'default' };

interface UploadValues {
  name?: string;
  content: string;
  kind: ExternalKind;
}

function useKindLabels(): Record<ExternalKind, string> {
  const t = useT();
  return { ca: t('cert:external.kinds.ca'), certificate: t('cert:external.kinds.certificate') };
}

function useStatusLabels() {
  const t = useT();
  return {
    valid: t('cert:external.statuses.valid'),
    expired: t('cert:external.statuses.expired'),
    'not-yet-valid': t('cert:external.statuses.not-yet-valid'),
  };
}

function ExternalDetailDrawer({ id, onClose }: { id: string; onClose: () => void }) {
  const t = useT();
  const labels = useStatusLabels();
  const kindLabels = useKindLabels();
  const detail = useQuery({ queryKey: certKeys.externalDetail(id), queryFn: () => externalDetail(id) });
  return (
    <DetailDrawer
      record={detail.data}
      onClose={onClose}
      title={(ca) =>
        ca.kind === 'ca'
          ? t('cert:external.detailTitle', { name: ca.name })
          : t('cert:external.detailTitleCertificate', { name: ca.name })
      }
      extra={(ca) => (
        <Button
          icon={<DownloadOutlined />}
          onClick={() => saveText(`${fileStem(ca.name)}.pem`, ca.certificate_pem)}
          data-testid="external-detail-download"
        >
          {t('cert:external.downloadPem')}
        </Button>
      )}
      testId="external-detail"
      items={(ca) => [
        { key: 'name', label: t('cert:fields.name'), children: ca.name },
        {
          key: 'kind',
          label: t('cert:external.kind'),
          children: (
            <>
              <StatusTag
                value={ca.kind}
                colors={kindColors}
                labels={kindLabels}
                testId="external-detail-kind"
              />
              <Typography.Text type="secondary">{t(`cert:external.kindMeaning.${ca.kind}`)}</Typography.Text>
            </>
          ),
        },
        { key: 'subject', label: t('cert:fields.subject'), children: ca.subject },
        {
          key: 'issuer',
          label: t('cert:fields.issuer'),
          children: (
            <>
              {ca.issuer} {ca.self_signed && <Tag>{t('cert:fields.selfSigned')}</Tag>}
            </>
          ),
        },
        { key: 'serial', label: t('cert:fields.serial'), children: <Hex value={ca.serial} /> },
        { key: 'algorithm', label: t('cert:fields.algorithm'), children: ca.algorithm },
        ...validityItems(t, ca),
        {
          key: 'status',
          label: t('cert:fields.status'),
          children: <StatusTag value={ca.status} colors={externalStatusColors} labels={labels} />,
        },
        createdAtItem(t, ca),
      ]}
    >
      {(ca) => (
        <PemBlock
          label={t('cert:fields.certificate')}
          value={ca.certificate_pem}
          testId="external-detail-pem"
        />
      )}
    </DetailDrawer>
  );
}

/**
 * Certificates › external: CA certificates kept as trust anchors (PEM or a .p7b chain), and
 * end-entity certificates only kept (never trusted as issuers), which KMIP clients register too.
 */
export default function ExternalCertPage() {
  const t = useT();
  const kit = useColumnKit<ExternalCaRow>();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const confirmDelete = useConfirmDelete();
  const canWrite = useCanCall(api.cert.externalUpload);
  const labels = useStatusLabels();
  const kindLabels = useKindLabels();
  const kindOptions = externalKinds.map((value) => ({ value, label: kindLabels[value] }));
  const [uploading, setUploading] = useState(false);
  const [viewing, setViewing] = useState<ExternalCaRow | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: certKeys.external });

  const download = async (row: ExternalCaRow) => {
    const detail = await externalDetail(row.id);
    saveText(`${fileStem(row.name)}.pem`, detail.certificate_pem);
  };

  const columns: ColumnsType<ExternalCaRow> = [
    kit.name(t('cert:fields.name'), 'name', (name: string, row) => (
      <Typography.Link strong onClick={() => setViewing(row)} data-testid={`external-link-${name}`}>
        {name}
      </Typography.Link>
    )),
    {
      title: t('cert:external.kind'),
      dataIndex: 'kind',
      render: (kind: ExternalKind) => (
        <StatusTag value={kind} colors={kindColors} labels={kindLabels} testId="external-kind" />
      ),
    },
    { title: t('cert:fields.subject'), dataIndex: 'subject', ellipsis: true },
    { title: t('cert:fields.issuer'), dataIndex: 'issuer', ellipsis: true },
    {
      title: t('cert:fields.fingerprint'),
      dataIndex: 'fingerprint',
      render: (value: string) => <Hex value={value} short />,
    },
    {
      title: t('cert:fields.validity'),
      key: 'validity',
      render: (_value: unknown, row) => <Validity from={row.not_before} to={row.not_after} />,
    },
    {
      title: t('cert:fields.status'),
      dataIndex: 'status',
      render: (status: ExternalCaRow['status']) => (
        <StatusTag value={status} colors={externalStatusColors} labels={labels} testId="external-status" />
      ),
    },
    kit.actions((row) => (
      <RowActions
        items={[
          {
            label: t('cert:external.downloadPem'),
            onClick: () => void download(row).catch(() => undefined),
            testId: `external-download-${row.name}`,
          },
          {
            label: t('common:actions.delete'),
            onClick: () =>
              confirmDelete({
                title:
                  row.kind === 'ca'
                    ? t('cert:external.deleteConfirm', { name: row.name })
                    : t('cert:external.deleteConfirmCertificate', { name: row.name }),
                remove: () => deleteExternal([row.id]),
                refresh,
              }),
            testId: `external-delete-${row.name}`,
            danger: true,
            show: canWrite,
          },
        ]}
      />
    )),
  ];

  return (
    <>
      <ListPage<ExternalCaRow>
        queryKey={certKeys.external}
        fetchPage={({ page, page_size, filters }) =>
          listExternal({
            page,
            page_size,
            name: filters.name,
            kind: externalKinds.find((kind) => kind === filters.kind),
          })
        }
        rowKey="id"
        columns={columns}
        filters={[
          { name: 'name', label: t('cert:fields.name') },
          { name: 'kind', label: t('cert:external.kind'), options: kindOptions },
        ]}
        toolbar={canWrite && <ListAddButton onClick={() => setUploading(true)} testId="external-upload" />}
        onDelete={canWrite ? (ids) => deleteExternal(ids) : undefined}
        testId="external"
        rowTestId={(row) => `external-row-${row.name}`}
      />
      <FormModal<UploadValues>
        open={uploading}
        title={t('cert:external.uploadTitle')}
        schema={api.cert.externalUpload.body}
        schemaRules={certFieldRules}
        width={640}
        okText={t('cert:external.upload')}
        okTestId="external-upload-ok"
        initialValues={{ kind: 'ca' }}
        fields={[
          {
            name: 'kind',
            label: t('cert:external.kind'),
            kind: 'select',
            options: kindOptions,
            extra: t('cert:external.kindHint'),
            testId: 'external-upload-kind',
          },
          {
            name: 'name',
            label: t('cert:fields.name'),
            extra: t('cert:external.nameHint'),
            testId: 'external-name',
          },
          {
            name: 'content',
            label: t('cert:external.content'),
            kind: 'custom',
            extra: t('cert:external.uploadHint'),
            render: () => (
              <PemInput
                read={readCertFile}
                accept=".pem,.crt,.cer,.der,.p7b,.p7c"
                placeholder="-----BEGIN CERTIFICATE-----"
                testId="external-content"
              />
            ),
          },
        ]}
        onSubmit={async (values) => {
          const name = values.name?.trim();
          const result = await uploadExternal({
            content: values.content.trim(),
            kind: values.kind,
            ...(name ? { name } : {}),
          });
          void message.success(
            t('cert:external.uploaded', { added: result.added.length, skipped: result.skipped }),
          );
          await refresh();
        }}
        onClose={() => setUploading(false)}
      />
      {viewing && <ExternalDetailDrawer id={viewing.id} onClose={() => setViewing(null)} />}
    </>
  );
}
