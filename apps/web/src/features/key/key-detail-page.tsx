import { useState, type ReactNode } from 'react';
import { ArrowLeftOutlined, EditOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Descriptions, Flex, Grid, Space, Tabs, Tag, Typography } from 'antd';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { api } from '@ksp/contracts';
import { keyDetail, keyKeys, updateKey, type KeyRow } from '../../api/key';
import { formatDateTime } from '../../components/date-time';
import { FormModal } from '../../components/form-modal';
import { isUuid, NotFound, recordPlaceholder } from '../../components/not-found';
import { useCanCall } from '../../components/permissions';
import { fieldSchema, rulesFromSchema } from '../../components/schema-rules';
import { useT } from '../../i18n/i18n';
import { KeyActionButtons, useKeyActions } from './key-actions';
import { KeyStateTags, KeyTypeText, mono, UsageTags, useSecurityLevel } from './key-display';
import { useLabelRules } from './key-form-modal';
import { CteInput, LabelsInput } from './key-inputs';
import {
  buildUpdateBody,
  editValuesOf,
  familyLabel,
  signatureScheme,
  keyAreaOf,
  keyDetailPath,
  keyListPath,
  isRevocationReason,
  supportsCte,
  type KeyArea,
  type KeyEditValues,
} from './key-model';
import { VersionsTable, AuditTable } from './key-history';
import { KeyDbReaders } from './key-db-readers';

/** The linked half of a key pair, by name when it can be read. */
function LinkedKey({ id, area }: { id: string; area: KeyArea }) {
  const linked = useQuery({
    queryKey: keyKeys.detail(id),
    queryFn: () => keyDetail(id, { silent: true }),
    retry: false,
  });
  return (
    <Link to={keyDetailPath(area, id)} data-testid="key-linked">
      {linked.data?.name ?? id}
    </Link>
  );
}

function KeyAttributes({ row, area }: { row: KeyRow; area: KeyArea }) {
  const t = useT();
  const securityLevel = useSecurityLevel();
  const none = t('keys:detail.none');
  const yesNo = (value: boolean) => t(value ? 'keys:detail.yes' : 'keys:detail.no');
  const allowed = (value: boolean) => t(value ? 'keys:detail.allowed' : 'keys:detail.notAllowed');
  const level = securityLevel(row.algorithm);
  const item = (key: string, label: string, children: ReactNode, span?: 'filled') => ({
    key,
    label,
    children: <span data-testid={`key-attr-${key}`}>{children}</span>,
    ...(span ? { span } : {}),
  });
  const scheme = signatureScheme(row.family, row.usages);
  const items = [
    item('name', t('keys:detail.name'), row.name),
    item(
      'id',
      t('keys:detail.id'),
      <Typography.Text copyable style={mono}>
        {row.id}
      </Typography.Text>,
    ),
    item('algorithm', t('keys:detail.algorithm'), row.algorithm),
    item('family', t('keys:detail.family'), familyLabel(row.family)),
    ...(row.pqc_parameter_set
      ? [
          item('parameterSet', t('keys:detail.parameterSet'), row.pqc_parameter_set),
          item('securityLevel', t('keys:detail.securityLevel'), level ?? row.security_level),
        ]
      : [item('size', t('keys:detail.size'), t('keys:algorithm.bits', { bits: row.size_bits }))]),
    item('type', t('keys:detail.type'), <KeyTypeText type={row.object_type} />),
    item(
      'linkedKey',
      t('keys:detail.linkedKey'),
      row.linked_key_id ? <LinkedKey id={row.linked_key_id} area={area} /> : none,
    ),
    item('usage', t('keys:detail.usage'), <UsageTags usages={row.usages} />),
    ...(scheme
      ? [item('signatureFormat', t('keys:detail.signatureFormat'), t(`keys:signatureSchemes.${scheme}`))]
      : []),
    item('state', t('keys:detail.state'), <KeyStateTags row={row} />),
    item('activationDate', t('keys:detail.activationDate'), formatDateTime(row.activation_date)),
    item('deactivationDate', t('keys:detail.deactivationDate'), formatDateTime(row.deactivation_date)),
    ...(row.revocation_reason
      ? [
          item(
            'revocationReason',
            t('keys:detail.revocationReason'),
            isRevocationReason(row.revocation_reason)
              ? t(`keys:reasons.${row.revocation_reason}`)
              : row.revocation_reason,
          ),
          item('revocationMessage', t('keys:detail.revocationMessage'), row.revocation_message || none),
        ]
      : []),
    ...(row.destroyed_at
      ? [item('destroyedAt', t('keys:detail.destroyedAt'), formatDateTime(row.destroyed_at))]
      : []),
    item('exportable', t('keys:detail.exportable'), allowed(row.exportable)),
    item('deletable', t('keys:detail.deletable'), allowed(row.deletable)),
    item('owner', t('keys:detail.owner'), row.owner),
    item('version', t('keys:detail.version'), row.version),
    row.kcv
      ? item('kcv', t('keys:detail.kcv'), <Typography.Text style={mono}>{row.kcv}</Typography.Text>)
      : item(
          'fingerprint',
          t('keys:detail.fingerprint'),
          <Typography.Text style={mono}>{row.fingerprint ?? none}</Typography.Text>,
        ),
    item('kmipTotal', t('keys:detail.kmipTotal'), row.kmip_total),
    item('operations', t('keys:detail.operations'), row.operations),
    item('created', t('keys:detail.created'), formatDateTime(row.created_at)),
    item('updated', t('keys:detail.updated'), formatDateTime(row.updated_at)),
    ...(supportsCte(row.algorithm)
      ? [
          item(
            'cte',
            t('keys:detail.cte'),
            row.cte ? (
              <Space size={[4, 4]} wrap>
                <Tag>{`${t('keys:form.cteVersioned')}: ${yesNo(row.cte.versioned)}`}</Tag>
                <Tag>{`${t('keys:form.ctePersistent')}: ${yesNo(row.cte.persistent_on_client)}`}</Tag>
                <Tag>{`${t('keys:form.cteMode')}: ${t(`keys:modes.${row.cte.encryption_mode}`)}`}</Tag>
              </Space>
            ) : (
              t('keys:detail.cteOff')
            ),
            'filled',
          ),
        ]
      : []),
    item(
      'labels',
      t('keys:detail.labels'),
      Object.keys(row.labels).length > 0 ? (
        <Space size={[4, 4]} wrap>
          {Object.entries(row.labels).map(([key, value]) => (
            <Tag key={key}>{value ? `${key}=${value}` : key}</Tag>
          ))}
        </Space>
      ) : (
        none
      ),
      'filled',
    ),
    item('description', t('keys:detail.description'), row.description || none, 'filled'),
  ];
  return (
    <Descriptions
      bordered
      size="small"
      column={{ xs: 1, sm: 1, md: 2, lg: 2, xl: 2, xxl: 3 }}
      items={items}
      data-testid="key-attributes"
    />
  );
}

function EditKeyModal({ row, open, onClose }: { row: KeyRow; open: boolean; onClose: () => void }) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const labelRules = useLabelRules();
  const nameLabel = t('keys:form.name');
  const descriptionLabel = t('keys:form.description');
  return (
    <FormModal<KeyEditValues>
      open={open}
      title={t('keys:detail.editTitle', { name: row.name })}
      initialValues={editValuesOf(row)}
      fields={[
        {
          name: 'name',
          label: nameLabel,
          testId: 'edit-name',
          rules: rulesFromSchema(fieldSchema(api.key.create.body, 'name'), nameLabel),
        },
        {
          name: 'description',
          label: descriptionLabel,
          kind: 'textarea',
          testId: 'edit-description',
          rules: rulesFromSchema(fieldSchema(api.key.update.body, 'description'), descriptionLabel),
        },
        {
          name: 'labels',
          label: t('keys:form.labels'),
          kind: 'custom',
          render: () => <LabelsInput />,
          rules: labelRules,
        },
        {
          name: 'exportable',
          label: t('keys:form.exportable'),
          kind: 'switch',
          disabled: row.exportable,
          extra: row.exportable ? t('keys:detail.exportableLocked') : t('keys:form.exportableHint'),
          testId: 'edit-exportable',
        },
        { name: 'deletable', label: t('keys:form.deletable'), kind: 'switch', testId: 'edit-deletable' },
        {
          name: 'cte',
          label: t('keys:form.cte'),
          kind: 'custom',
          hidden: !supportsCte(row.algorithm),
          render: () => <CteInput />,
        },
      ]}
      onSubmit={async (values) => {
        await updateKey(buildUpdateBody(row, values));
        void message.success(t('keys:feedback.saved'));
        await queryClient.invalidateQueries({ queryKey: keyKeys.all });
      }}
      onClose={onClose}
    />
  );
}

/** One key: every attribute, edit, its versions and audit trail, and the lifecycle actions. */
export default function KeyDetailPage() {
  const t = useT();
  const { id = '' } = useParams();
  const area = keyAreaOf(useLocation().pathname);
  const navigate = useNavigate();
  const screens = Grid.useBreakpoint();
  const canEdit = useCanCall(api.key.update);
  const validId = isUuid(id);
  const [editing, setEditing] = useState(false);
  const detail = useQuery({
    queryKey: keyKeys.detail(id),
    queryFn: () => keyDetail(id, { silent: true }),
    // A malformed id is not asked for: it is simply not found.
    enabled: validId,
    retry: false,
  });
  const actions = useKeyActions({ onDeleted: () => void navigate(keyListPath(area)) });
  const row = detail.data;

  const back = (
    <Link to={keyListPath(area)} data-testid="key-back">
      <Space size={4}>
        <ArrowLeftOutlined />
        {t('keys:actions.back')}
      </Space>
    </Link>
  );

  if (!validId) return <NotFound title={t('keys:detail.notFound')} extra={back} />;
  const placeholder = recordPlaceholder(detail, { title: t('keys:detail.notFound'), extra: back });
  if (placeholder || !row) return placeholder;

  return (
    <Flex vertical gap={16} data-testid="key-detail">
      <Card
        title={
          <Space wrap size={8}>
            <Typography.Title level={4} style={{ margin: 0 }} data-testid="key-detail-name">
              {row.name}
            </Typography.Title>
            <KeyStateTags row={row} />
          </Space>
        }
        extra={screens.sm ? back : undefined}
      >
        {!screens.sm && <div style={{ marginBottom: 12 }}>{back}</div>}
        <Flex wrap gap={8} style={{ marginBottom: 16 }} data-testid="key-detail-actions">
          {canEdit && (
            <Button
              type="primary"
              icon={<EditOutlined />}
              onClick={() => setEditing(true)}
              data-testid="key-edit"
            >
              {t('keys:actions.edit')}
            </Button>
          )}
          <KeyActionButtons row={row} actions={actions.actionsOf(row)} onRun={actions.run} />
          <Button
            icon={<ReloadOutlined />}
            aria-label={t('common:actions.refresh')}
            onClick={() => void detail.refetch()}
          />
        </Flex>
        <KeyAttributes row={row} area={area} />
      </Card>
      <Card>
        <Tabs
          items={[
            { key: 'versions', label: t('keys:detail.versions'), children: <VersionsTable row={row} /> },
            { key: 'audit', label: t('keys:detail.audit'), children: <AuditTable row={row} /> },
          ]}
        />
      </Card>
      <KeyDbReaders row={row} />
      <EditKeyModal row={row} open={editing} onClose={() => setEditing(false)} />
      {actions.dialogs}
    </Flex>
  );
}
