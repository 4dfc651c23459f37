import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Flex, Grid, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { api, DEFAULT_CA_VALIDITY_DAYS } from '@ksp/contracts';
import {
  allCas,
  certKeys,
  createCa,
  deleteCas,
  installCa,
  selfSignCa,
  signCa,
  updateCa,
  type CaDownloadKind,
  type LocalCaRow,
} from '../../api/cert';
import { RowActions, StatusTag, tableScrollX, useColumnKit } from '../../components/columns';
import { useConfirm, useConfirmDelete } from '../../components/confirm-delete';
import { FormModal } from '../../components/form-modal';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { caDownloads, useDownloads, withoutEmpty } from './cert-actions';
import { caStateColors, DefaultMark, DownloadMenu, Validity } from './cert-display';
import { CaDetailDrawer } from './ca-detail';
import { CA_PARAM } from '../../components/cert-links';
import { useViewSearchParams } from '../../components/view-activity';
import { PemInput } from '../../components/pem-input';
import { certFieldRules } from './cert-rules';
import { readCertFile } from './cert-files';
import {
  useCaFields,
  type CreateValues,
  type Dialog,
  type InstallValues,
  type RenameValues,
  type SignValues,
} from './ca-fields';

/** Certificates › local, part one: the local CAs and their lifecycle. */
export function CaPanel() {
  const t = useT();
  const kit = useColumnKit<LocalCaRow>();
  const screens = Grid.useBreakpoint();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const confirmDelete = useConfirmDelete();
  const downloads = useDownloads();
  const canWrite = useCanCall(api.cert.caCreate);
  const [dialog, setDialog] = useState<Dialog>(null);
  // `?tab=cas&ca=<id>` (a link from elsewhere, e.g. the key list) opens that CA's details.
  const [params, setParams] = useViewSearchParams();
  const linked = params.get(CA_PARAM);
  const closeLinked = () =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.delete(CA_PARAM);
      return next;
    });

  const cas = useQuery({ queryKey: certKeys.cas, queryFn: allCas });
  const rows = cas.data ?? [];
  const refresh = () => queryClient.invalidateQueries({ queryKey: certKeys.all });
  const close = () => setDialog(null);

  const stateLabels = {
    pending: t('cert:states.pending'),
    active: t('cert:states.active'),
    expired: t('cert:states.expired'),
  };
  const downloadLabel = (kind: CaDownloadKind) => t(`cert:ca.downloads.${kind}`);

  const makeDefault = (ca: LocalCaRow) =>
    confirm({
      title: t('cert:ca.defaultConfirm', { name: ca.name }),
      content: t('cert:ca.defaultText'),
      okText: t('cert:ca.makeDefault'),
      testId: 'ca-default-ok',
      onOk: async () => {
        await updateCa({ id: ca.id, is_default: true });
        void message.success(t('common:feedback.saved'));
        await refresh();
      },
    });

  const remove = (ca: LocalCaRow) =>
    confirmDelete({
      title: t('cert:ca.deleteConfirm', { name: ca.name }),
      testId: 'ca-delete-ok',
      remove: () => deleteCas([ca.id]),
      refresh,
    });

  const columns: ColumnsType<LocalCaRow> = [
    kit.name(t('cert:fields.name'), 'name', (name: string, ca) => (
      <Flex gap={4} align="center" wrap>
        <Typography.Link
          strong
          onClick={() => setDialog({ kind: 'detail', ca })}
          data-testid={`ca-link-${name}`}
        >
          {name}
        </Typography.Link>
        {ca.is_default && <DefaultMark />}
      </Flex>
    )),
    { title: t('cert:fields.cn'), dataIndex: 'cn' },
    {
      title: t('cert:fields.state'),
      dataIndex: 'state',
      render: (state: LocalCaRow['state']) => (
        <StatusTag value={state} colors={caStateColors} labels={stateLabels} testId="ca-state" />
      ),
    },
    {
      title: t('cert:fields.type'),
      dataIndex: 'type',
      render: (type: LocalCaRow['type']) => (type ? <Tag>{t(`cert:types.${type}`)}</Tag> : '-'),
    },
    {
      title: t('cert:fields.algorithm'),
      dataIndex: 'algorithm',
    },
    {
      title: t('cert:fields.validity'),
      key: 'validity',
      render: (_value: unknown, ca) => <Validity from={ca.not_before} to={ca.not_after} />,
    },
    {
      title: t('cert:fields.parent'),
      dataIndex: 'parent_name',
      render: (value: string | null) => value ?? '-',
    },
    { title: t('cert:fields.issued'), dataIndex: 'issued', align: 'right' },
    kit.actions((ca) => (
      <RowActions
        items={[
          {
            label: t('cert:ca.selfSign'),
            onClick: () => setDialog({ kind: 'self-sign', ca }),
            testId: `ca-self-sign-${ca.name}`,
            show: canWrite && ca.state === 'pending',
          },
          {
            label: t('cert:ca.sign'),
            onClick: () => setDialog({ kind: 'sign', ca }),
            testId: `ca-sign-${ca.name}`,
            show: canWrite && ca.state === 'pending',
          },
          {
            label: t('cert:ca.install'),
            onClick: () => setDialog({ kind: 'install', ca }),
            testId: `ca-install-${ca.name}`,
            show: canWrite && ca.state === 'pending',
          },
          {
            label: t('cert:ca.makeDefault'),
            onClick: () => makeDefault(ca),
            testId: `ca-make-default-${ca.name}`,
            show: canWrite && ca.state === 'active' && !ca.is_default,
          },
          {
            label: t('cert:ca.rename'),
            onClick: () => setDialog({ kind: 'rename', ca }),
            testId: `ca-rename-${ca.name}`,
            show: canWrite,
          },
          {
            label: t('common:actions.delete'),
            onClick: () => remove(ca),
            testId: `ca-delete-${ca.name}`,
            danger: true,
            show: canWrite,
          },
        ]}
      >
        <DownloadMenu
          kinds={caDownloads(ca)}
          label={downloadLabel}
          onChoose={(kind) => void downloads.ca(ca.id, kind)}
          testId={`ca-download-${ca.name}`}
        />
      </RowActions>
    )),
  ];

  const { nameFields, signFields, required } = useCaFields(rows, dialog);

  const target = dialog && 'ca' in dialog ? dialog.ca : null;
  const signBody = (values: SignValues) =>
    withoutEmpty({ validity_days: values.validity_days, path_len: values.path_len ?? undefined });

  return (
    <Card data-testid="ca-list">
      <Flex wrap gap={8} justify="space-between" align="center" style={{ marginBottom: 12 }}>
        <Flex gap={8} wrap>
          {canWrite && (
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() => setDialog({ kind: 'create' })}
              data-testid="ca-create"
            >
              {t('cert:ca.create')}
            </Button>
          )}
        </Flex>
        <Button
          icon={<ReloadOutlined />}
          aria-label={t('common:actions.refresh')}
          onClick={() => void cas.refetch()}
        />
      </Flex>
      <Table<LocalCaRow>
        rowKey="id"
        columns={columns}
        dataSource={rows}
        loading={cas.isFetching}
        scroll={{ x: tableScrollX(columns, false) }}
        size={screens.md ? 'medium' : 'small'}
        pagination={false}
        onRow={(ca) => ({ 'data-testid': `ca-row-${ca.name}` }) as React.HTMLAttributes<HTMLElement>}
      />
      <FormModal<CreateValues>
        open={dialog?.kind === 'create'}
        title={t('cert:ca.createTitle')}
        schema={api.cert.caCreate.body}
        schemaRules={certFieldRules}
        fields={nameFields}
        initialValues={{ algorithm: 'EC-P256' }}
        okTestId="ca-form-ok"
        onSubmit={async (values) => {
          await createCa(withoutEmpty(values));
          await refresh();
        }}
        onClose={close}
      />
      <FormModal<SignValues>
        open={dialog?.kind === 'self-sign'}
        title={t('cert:ca.selfSignTitle', { name: target?.name ?? '' })}
        schema={api.cert.caSelfSign.body}
        fields={signFields(false)}
        initialValues={{ validity_days: DEFAULT_CA_VALIDITY_DAYS }}
        okText={t('cert:ca.selfSign')}
        okTestId="ca-form-ok"
        onSubmit={async (values) => {
          if (!target) return;
          await selfSignCa({ id: target.id, ...signBody(values) });
          await refresh();
        }}
        onClose={close}
      />
      <FormModal<SignValues>
        open={dialog?.kind === 'sign'}
        title={t('cert:ca.signTitle', { name: target?.name ?? '' })}
        schema={api.cert.caSign.body}
        fields={signFields(true)}
        initialValues={{
          validity_days: DEFAULT_CA_VALIDITY_DAYS,
          parent_id: rows.find((ca) => ca.is_default && ca.state === 'active')?.id,
        }}
        okText={t('cert:ca.sign')}
        okTestId="ca-form-ok"
        onSubmit={async (values) => {
          if (!target || !values.parent_id) return;
          await signCa({ id: target.id, parent_id: values.parent_id, ...signBody(values) });
          await refresh();
        }}
        onClose={close}
      />
      <FormModal<InstallValues>
        open={dialog?.kind === 'install'}
        title={t('cert:ca.installTitle', { name: target?.name ?? '' })}
        schema={api.cert.caInstall.body}
        fields={[
          {
            name: 'certificate',
            label: t('cert:fields.certificate'),
            kind: 'custom',
            extra: t('cert:ca.installHint'),
            render: () => (
              <PemInput
                read={readCertFile}
                accept=".pem,.crt,.cer"
                placeholder="-----BEGIN CERTIFICATE-----"
                testId="ca-install-pem"
              />
            ),
          },
        ]}
        okText={t('cert:ca.install')}
        okTestId="ca-form-ok"
        width={640}
        onSubmit={async (values) => {
          if (!target) return;
          await installCa({ id: target.id, certificate: values.certificate.trim() });
          await refresh();
        }}
        onClose={close}
      />
      <FormModal<RenameValues>
        open={dialog?.kind === 'rename'}
        title={t('cert:ca.renameTitle', { name: target?.name ?? '' })}
        schema={api.cert.caUpdate.body}
        schemaRules={certFieldRules}
        fields={[
          {
            name: 'name',
            label: t('cert:fields.name'),
            rules: required(t('cert:fields.name')),
            testId: 'ca-rename-name',
          },
        ]}
        initialValues={{ name: target?.name }}
        okTestId="ca-form-ok"
        onSubmit={async (values) => {
          if (!target) return;
          await updateCa({ id: target.id, name: values.name.trim() });
          await refresh();
        }}
        onClose={close}
      />
      {dialog?.kind === 'detail' && (
        <CaDetailDrawer
          id={dialog.ca.id}
          onClose={close}
          onDownload={(kind) => void downloads.ca(dialog.ca.id, kind)}
        />
      )}
      {linked && !dialog && (
        <CaDetailDrawer
          id={linked}
          onClose={closeLinked}
          onDownload={(kind) => void downloads.ca(linked, kind)}
        />
      )}
    </Card>
  );
}
