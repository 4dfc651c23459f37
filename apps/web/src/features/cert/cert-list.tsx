import { useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Form, Input, Select, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import {
  api,
  certPurposes,
  certStatuses,
  crlReasons,
  EXPIRING_DAYS,
  type certSources,
  type CrlReason,
} from '@ksp/contracts';
import {
  allCas,
  certKeys,
  deleteCerts,
  downloadCertKey,
  listCerts,
  resumeCert,
  revokeCert,
  type CertDownloadKind,
  type CertRow,
  type KeyDownloadKind,
} from '../../api/cert';
import { RowActions, useColumnKit, withWidths } from '../../components/columns';
import { useConfirm, useConfirmDelete } from '../../components/confirm-delete';
import { ModalForm } from '../../components/form-modal';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { limitsAt } from '../../components/schema-limits';
import { requiredRule } from '../../components/schema-rules';
import { useT } from '../../i18n/i18n';
import { certActionsFor, certDownloads, isKeyDownload, keyDownloads, useDownloads } from './cert-actions';
import { DownloadMenu, Hex, Validity } from './cert-display';
import { CertDetailDrawer, CertStatus } from './cert-detail';
import { CERT_PARAM } from '../../components/cert-links';
import { useViewSearchParams } from '../../components/view-activity';
import { saveDownload } from './cert-files';
import { IssueModal } from './issue-modal';

type Dialog =
  | { kind: 'issue' }
  | { kind: 'revoke' | 'detail'; cert: CertRow }
  | { kind: 'key'; cert: CertRow; format: KeyDownloadKind }
  | null;

interface RevokeValues {
  reason: CrlReason;
}
interface KeyValues {
  password: string;
  confirm: string;
}

const PASSWORD = limitsAt(api.cert.downloadKey.body!, ['password']);

/**
 * Certificates › local, part two: the certificates the local CAs issued; with `source`, only
 * those issued that way (the UKEY tab), with the page's own `toolbar` instead of "Issue".
 */
export function CertList({
  source,
  toolbar,
  keepParams,
}: {
  source?: (typeof certSources)[number];
  toolbar?: ReactNode;
  /** URL search params of the page around the list (see ListPage). */
  keepParams?: readonly string[];
} = {}) {
  const t = useT();
  const kit = useColumnKit<CertRow>();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const confirmDelete = useConfirmDelete();
  const downloads = useDownloads();
  const canWrite = useCanCall(api.cert.issue);
  const [dialog, setDialog] = useState<Dialog>(null);
  // `?cert=<id>` (a link from elsewhere, e.g. the key list) opens that certificate's details.
  const [params, setParams] = useViewSearchParams();
  const linked = params.get(CERT_PARAM);
  const closeLinked = () =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.delete(CERT_PARAM);
      return next;
    });
  const cas = useQuery({ queryKey: certKeys.cas, queryFn: allCas });
  const activeCas = (cas.data ?? []).filter((ca) => ca.state === 'active');

  const refresh = () => queryClient.invalidateQueries({ queryKey: certKeys.all });
  const close = () => setDialog(null);

  const canExport = useCanCall(api.cert.downloadKey);
  const download = (cert: CertRow, kind: CertDownloadKind | KeyDownloadKind) => {
    if (isKeyDownload(kind)) setDialog({ kind: 'key', cert, format: kind });
    else void downloads.cert(cert.id, kind);
  };
  const downloadKinds = (cert: CertRow) => [...certDownloads(cert), ...keyDownloads(cert, canExport)];

  const resume = (cert: CertRow) =>
    confirm({
      title: t('cert:certs.resumeConfirm', { name: cert.name }),
      content: t('cert:certs.resumeText'),
      okText: t('cert:certs.resume'),
      testId: 'cert-resume-ok',
      onOk: async () => {
        await resumeCert(cert.id);
        void message.success(t('common:feedback.saved'));
        await refresh();
      },
    });

  const remove = (cert: CertRow) =>
    confirmDelete({
      title: t('cert:certs.deleteConfirm', { name: cert.name }),
      remove: () => deleteCerts([cert.id]),
      refresh,
    });

  const purposeOptions = certPurposes.map((value) => ({ value, label: t(`cert:purposes.${value}`) }));
  const statusOptions = certStatuses.map((value) => ({ value, label: t(`cert:statuses.${value}`) }));

  const columns: ColumnsType<CertRow> = [
    kit.name(t('cert:fields.name'), 'name', (name: string, cert) => (
      <Typography.Link
        strong
        onClick={() => setDialog({ kind: 'detail', cert })}
        data-testid={`cert-link-${name}`}
      >
        {name}
      </Typography.Link>
    )),
    // What matters first (status, validity, parent), on screen at 1280 px beside the pinned
    // name and actions; the rest scrolls. Long texts are cut to their width, whole in a tooltip.
    {
      title: t('cert:fields.status'),
      dataIndex: 'status',
      render: (_value: unknown, cert) => <CertStatus cert={cert} />,
    },
    {
      title: t('cert:fields.validity'),
      key: 'validity',
      render: (_value: unknown, cert) => <Validity from={cert.not_before} to={cert.not_after} stacked />,
    },
    kit.text(t('cert:fields.parent'), 'ca_name'),
    kit.text(t('cert:fields.cn'), 'cn'),
    {
      title: t('cert:fields.purpose'),
      dataIndex: 'purpose',
      render: (value: CertRow['purpose']) => t(`cert:purposes.${value}`),
    },
    {
      title: t('cert:fields.usage'),
      dataIndex: 'usage',
      render: (value: CertRow['usage']) => t(`cert:usages.${value}`),
    },
    {
      title: t('cert:fields.algorithmLength'),
      key: 'algorithm',
      render: (_value: unknown, cert) => `${cert.algorithm} / ${cert.key_bits}`,
    },
    {
      title: t('cert:fields.serial'),
      dataIndex: 'serial',
      render: (value: string) => <Hex value={value} short />,
    },
    kit.actions((cert) => {
      const allowed = certActionsFor(cert);
      return (
        <RowActions
          items={[
            {
              label: t('cert:certs.revoke'),
              onClick: () => setDialog({ kind: 'revoke', cert }),
              testId: `cert-revoke-${cert.name}`,
              danger: true,
              show: canWrite && allowed.revoke,
            },
            {
              label: t('cert:certs.resume'),
              onClick: () => resume(cert),
              testId: `cert-resume-${cert.name}`,
              show: canWrite && allowed.resume,
            },
            {
              label: t('common:actions.delete'),
              onClick: () => remove(cert),
              testId: `cert-delete-${cert.name}`,
              danger: true,
              show: canWrite && allowed.delete,
            },
          ]}
        >
          <DownloadMenu
            kinds={downloadKinds(cert)}
            label={(kind) => t(`cert:certs.downloads.${kind}`)}
            onChoose={(kind) => download(cert, kind)}
            testId={`cert-download-${cert.name}`}
          />
        </RowActions>
      );
    }),
  ];

  // Every column has a width: the table scrolls by their sum, so none ends under a pinned one.
  const sized = withWidths(columns, {
    name: 190,
    status: 110,
    validity: 190,
    ca_name: 150,
    cn: 170,
    purpose: 120,
    usage: 110,
    algorithm: 140,
    serial: 190,
    operations: 210,
  });

  const keyDialog = dialog?.kind === 'key' ? dialog : null;
  const revoking = dialog?.kind === 'revoke' ? dialog.cert : null;

  return (
    <>
      <ListPage<CertRow>
        queryKey={source ? [...certKeys.certs, source] : certKeys.certs}
        fetchPage={({ page, page_size, filters }) =>
          listCerts({
            page,
            page_size,
            source,
            name: filters.name,
            ca_id: filters.ca_id,
            status: certStatuses.find((value) => value === filters.status),
            purpose: certPurposes.find((value) => value === filters.purpose),
            expiring:
              filters.expiring === 'true' || filters.expiring === 'false' ? filters.expiring : undefined,
          })
        }
        rowKey="id"
        columns={sized}
        filters={[
          { name: 'name', label: t('cert:certs.filters.name') },
          { name: 'status', label: t('cert:certs.filters.status'), options: statusOptions },
          {
            name: 'ca_id',
            label: t('cert:certs.filters.ca'),
            options: (cas.data ?? []).map((ca) => ({ value: ca.id, label: ca.name })),
          },
          { name: 'purpose', label: t('cert:certs.filters.purpose'), options: purposeOptions },
          {
            name: 'expiring',
            label: t('cert:certs.filters.expiring'),
            options: [
              { value: 'true', label: t('cert:expiringFilter.true', { days: EXPIRING_DAYS }) },
              { value: 'false', label: t('cert:expiringFilter.false') },
            ],
          },
        ]}
        toolbar={
          toolbar ??
          (canWrite && <ListAddButton onClick={() => setDialog({ kind: 'issue' })} testId="cert-issue" />)
        }
        keepParams={keepParams}
        onDelete={canWrite ? (ids) => deleteCerts(ids) : undefined}
        canSelect={(cert) => certActionsFor(cert).delete}
        testId="cert"
        rowTestId={(cert) => `cert-row-${cert.name}`}
      />
      <IssueModal
        open={dialog?.kind === 'issue'}
        cas={activeCas}
        onClose={close}
        onIssued={async () => {
          void message.success(t('common:feedback.saved'));
          await refresh();
        }}
      />
      <ModalForm<RevokeValues>
        open={revoking !== null}
        title={t('cert:certs.revokeTitle', { name: revoking?.name ?? '' })}
        initialValues={{ reason: 'unspecified' }}
        okText={t('cert:certs.revoke')}
        okTestId="revoke-ok"
        onSubmit={async (values) => {
          if (!revoking) return;
          await revokeCert({ id: revoking.id, reason: values.reason });
          await refresh();
        }}
        onClose={close}
      >
        <Typography.Paragraph type="secondary">{t('cert:certs.revokeHint')}</Typography.Paragraph>
        <Form.Item name="reason" label={t('cert:certs.reason')}>
          <Select
            options={crlReasons.map((value) => ({ value, label: t(`cert:reasons.${value}`) }))}
            data-testid="revoke-reason"
          />
        </Form.Item>
      </ModalForm>
      <ModalForm<KeyValues>
        open={keyDialog !== null}
        title={keyDialog ? t('cert:certs.keyTitle', { name: keyDialog.cert.name }) : ''}
        okText={t('cert:common.download')}
        okTestId="key-download-ok"
        onSubmit={async (values) => {
          if (!keyDialog) return;
          saveDownload(
            await downloadCertKey({
              id: keyDialog.cert.id,
              kind: keyDialog.format,
              password: values.password,
            }),
          );
        }}
        onClose={close}
      >
        <Typography.Paragraph type="secondary">
          {keyDialog && t(`cert:certs.downloads.${keyDialog.format}`)}. {t('cert:certs.keyHint')}
        </Typography.Paragraph>
        <Form.Item
          name="password"
          label={t('cert:certs.password')}
          rules={[
            requiredRule(t('cert:certs.password')),
            { min: PASSWORD.min, message: t('cert:certs.passwordLength') },
            { max: PASSWORD.max },
          ]}
        >
          <Input.Password autoComplete="new-password" data-testid="key-password" />
        </Form.Item>
        <Form.Item
          name="confirm"
          label={t('cert:certs.passwordConfirm')}
          dependencies={['password']}
          rules={[
            requiredRule(t('cert:certs.passwordConfirm')),
            ({ getFieldValue }) => ({
              validator: (_rule, value: unknown) =>
                value === getFieldValue('password')
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('cert:certs.passwordMismatch'))),
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" data-testid="key-password-confirm" />
        </Form.Item>
      </ModalForm>
      {dialog?.kind === 'detail' && (
        <CertDetailDrawer id={dialog.cert.id} onClose={close} onDownload={download} kinds={downloadKinds} />
      )}
      {linked && !dialog && (
        <CertDetailDrawer id={linked} onClose={closeLinked} onDownload={download} kinds={downloadKinds} />
      )}
    </>
  );
}
