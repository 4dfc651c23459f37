import { useEffect } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  Checkbox,
  Flex,
  Form,
  Input,
  InputNumber,
  Select,
  Space,
  Tag,
  Typography,
} from 'antd';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { api, policyElementKinds, type PolicyElementKind } from '@ksp/contracts';
import {
  createElement,
  deleteElement,
  fetchElement,
  listElements,
  tdePolicyKeys,
  updateElement,
} from '../../api/tde-policy';
import { useConfirmDelete } from '../../components/confirm-delete';
import { recordPlaceholder } from '../../components/not-found';
import { useCanCall } from '../../components/permissions';
import { limitsAt } from '../../components/schema-limits';
import { useSubmit } from '../../components/use-submit';
import { PageHeader } from '../../components/page-header';
import { useT } from '../../i18n/i18n';
import { policyPaths, usePolicyArea } from './area';
import type { Values } from './element-values';
import { bodyOf, valuesOf } from './element-values';
import { EntryList } from './element-entry-list';
import { FieldsCard } from './fields-card';

const NAME = limitsAt(api.tdePolicy.elementCreate.body!, ['name']);
const DESCRIPTION = limitsAt(api.tdePolicy.elementCreate.body!, ['description']);

/** TDE / RDM › create a policy element, or its details (edit, delete). */
export default function ElementEditorPage() {
  const t = useT();
  const area = usePolicyArea();
  const paths = policyPaths(area);
  const { id } = useParams();
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const confirmDelete = useConfirmDelete();
  const submit = useSubmit();
  const canWrite = useCanCall(api.tdePolicy.elementCreate);
  const [form] = Form.useForm<Values>();
  const detail = useQuery({
    queryKey: tdePolicyKeys.element(id ?? ''),
    queryFn: () => fetchElement(area, id ?? ''),
    enabled: Boolean(id),
  });
  const row = detail.data;
  const initialKind = policyElementKinds.find((k) => k === search.get('kind')) ?? 'resource';
  const kind = (Form.useWatch('kind', form) as PolicyElementKind | undefined) ?? row?.kind ?? initialKind;
  const signatureSets = useQuery({
    queryKey: [...tdePolicyKeys.elements, area, 'signature', 'options'],
    queryFn: () => listElements(area, { kind: 'signature', page: 1, page_size: 1000 }),
    enabled: kind === 'process',
  }).data?.data;

  useEffect(() => {
    if (row) form.setFieldsValue(valuesOf(row));
  }, [row, form]);

  const disabled = !canWrite;
  const back = () => void navigate(`${paths.elements}?kind=${row?.kind ?? kind}`);
  const kindLabel = t(`tdePolicy:kinds.${kind}`);

  const save = (values: Values) =>
    submit.run(async () => {
      // The kind the form holds, not the watched one: that may not have caught up with a choice
      // made just before the click.
      const body = bodyOf(values);
      const saved = id
        ? await updateElement({ id, ...body })
        : await createElement({ kind: values.kind, ...body });
      void message.success(t('tdePolicy:elements.saved', { name: saved.name }));
      await queryClient.invalidateQueries({ queryKey: tdePolicyKeys.elements });
      if (!id) void navigate(paths.element(saved.id), { replace: true });
    });

  const title = row
    ? t('tdePolicy:elements.detailTitle', { kind: kindLabel, name: row.name })
    : t('tdePolicy:elements.createTitle', { kind: kindLabel });

  const placeholder =
    id &&
    recordPlaceholder(detail, {
      title: t('tdePolicy:elements.notFound'),
      extra: <Button onClick={back}>{t('tdePolicy:elements.back')}</Button>,
    });
  if (placeholder) return placeholder;

  return (
    <Flex vertical gap={16} data-testid="element-editor">
      <PageHeader
        onBack={back}
        backLabel={t('tdePolicy:elements.back')}
        titleTestId="element-title"
        title={id && !row ? '' : title}
        actions={
          row &&
          canWrite && (
            <Button
              danger
              data-testid="element-delete"
              onClick={() =>
                confirmDelete({
                  title: t('tdePolicy:elements.deleteTitle', { kind: kindLabel, name: row.name }),
                  remove: async () => {
                    await deleteElement(row.id);
                    back();
                  },
                  refresh: () => queryClient.invalidateQueries({ queryKey: tdePolicyKeys.elements }),
                  testId: 'element-confirm-delete',
                })
              }
            >
              {t('tdePolicy:actions.delete')}
            </Button>
          )
        }
      />
      {row && (
        <Space wrap data-testid="element-used-by">
          <Typography.Text type="secondary">{t('tdePolicy:fields.usedBy')}:</Typography.Text>
          {row.used_by.length
            ? row.used_by.map((u) => <Tag key={u.id}>{u.name}</Tag>)
            : t('tdePolicy:elements.usedByNone')}
        </Space>
      )}
      <Form<Values>
        form={form}
        layout="vertical"
        disabled={disabled}
        initialValues={{
          kind: initialKind,
          resources: [],
          users: [],
          processes: [],
          source_list: [],
          signatures: [],
        }}
        onFinish={(v) => void save(v)}
      >
        <FieldsCard title={t('tdePolicy:sections.general')} first>
          <Form.Item name="kind" label={t('tdePolicy:fields.kind')} style={{ minWidth: 200 }}>
            <Select
              disabled={Boolean(id) || disabled}
              data-testid="element-kind"
              options={policyElementKinds.map((k) => ({ value: k, label: t(`tdePolicy:kinds.${k}`) }))}
            />
          </Form.Item>
          <Form.Item
            name="name"
            label={t('tdePolicy:fields.name')}
            rules={[{ required: true, whitespace: true, max: NAME.max }]}
            style={{ minWidth: 240, flex: 1 }}
          >
            <Input data-testid="element-name" maxLength={NAME.max} />
          </Form.Item>
          <Form.Item
            name="description"
            label={t('tdePolicy:fields.description')}
            style={{ minWidth: 240, flex: 2 }}
          >
            <Input data-testid="element-description" maxLength={DESCRIPTION.max} />
          </Form.Item>
        </FieldsCard>
        <Card title={t('tdePolicy:fields.entries')} size="small" style={{ marginTop: 16 }}>
          {kind === 'resource' && (
            <EntryList
              name="resources"
              disabled={disabled}
              addLabel={t('tdePolicy:actions.addEntry')}
              empty={{ directory: '/', file: '', include_subfolders: false }}
              fields={(i) => (
                <>
                  <Form.Item name={[i, 'directory']} noStyle>
                    <Input
                      placeholder={t('tdePolicy:fields.directory')}
                      style={{ width: 260 }}
                      data-testid={`resource-directory-${i}`}
                    />
                  </Form.Item>
                  <Form.Item name={[i, 'file']} noStyle>
                    <Input
                      placeholder={t('tdePolicy:fields.file')}
                      style={{ width: 180 }}
                      data-testid={`resource-file-${i}`}
                    />
                  </Form.Item>
                  <Form.Item name={[i, 'include_subfolders']} valuePropName="checked" noStyle>
                    <Checkbox data-testid={`resource-subfolders-${i}`}>
                      {t('tdePolicy:fields.includeSubfolders')}
                    </Checkbox>
                  </Form.Item>
                </>
              )}
            />
          )}
          {kind === 'user' && (
            <EntryList
              name="users"
              disabled={disabled}
              addLabel={t('tdePolicy:actions.addEntry')}
              empty={{}}
              fields={(i) => (
                <>
                  <Form.Item name={[i, 'uname']} noStyle>
                    <Input
                      placeholder={t('tdePolicy:fields.uname')}
                      style={{ width: 160 }}
                      data-testid={`user-uname-${i}`}
                    />
                  </Form.Item>
                  <Form.Item name={[i, 'uid']} noStyle>
                    <InputNumber
                      placeholder={t('tdePolicy:fields.uid')}
                      min={0}
                      style={{ width: 120 }}
                      data-testid={`user-uid-${i}`}
                    />
                  </Form.Item>
                  <Form.Item name={[i, 'gname']} noStyle>
                    <Input
                      placeholder={t('tdePolicy:fields.gname')}
                      style={{ width: 160 }}
                      data-testid={`user-gname-${i}`}
                    />
                  </Form.Item>
                  <Form.Item name={[i, 'gid']} noStyle>
                    <InputNumber
                      placeholder={t('tdePolicy:fields.gid')}
                      min={0}
                      style={{ width: 120 }}
                      data-testid={`user-gid-${i}`}
                    />
                  </Form.Item>
                </>
              )}
            />
          )}
          {kind === 'process' && (
            <EntryList
              name="processes"
              disabled={disabled}
              addLabel={t('tdePolicy:actions.addEntry')}
              empty={{ directory: '', file: '', signature_set_id: null }}
              fields={(i) => (
                <>
                  <Form.Item name={[i, 'directory']} noStyle>
                    <Input
                      placeholder={t('tdePolicy:fields.directory')}
                      style={{ width: 240 }}
                      data-testid={`process-directory-${i}`}
                    />
                  </Form.Item>
                  <Form.Item name={[i, 'file']} noStyle>
                    <Input
                      placeholder={t('tdePolicy:fields.file')}
                      style={{ width: 160 }}
                      data-testid={`process-file-${i}`}
                    />
                  </Form.Item>
                  <Form.Item name={[i, 'signature_set_id']} noStyle>
                    <Select
                      allowClear
                      placeholder={t('tdePolicy:fields.signatureSet')}
                      style={{ width: 200 }}
                      data-testid={`process-signature-${i}`}
                      options={(signatureSets ?? []).map((s) => ({ value: s.id, label: s.name }))}
                    />
                  </Form.Item>
                </>
              )}
            />
          )}
          {kind === 'signature' && (
            <Flex vertical gap={16}>
              <Typography.Text strong>{t('tdePolicy:fields.sourceList')}</Typography.Text>
              <EntryList
                name="source_list"
                disabled={disabled}
                addLabel={t('tdePolicy:actions.addPath')}
                empty={{ path: '' }}
                fields={(i) => (
                  <Form.Item name={[i, 'path']} noStyle>
                    <Input
                      placeholder={t('tdePolicy:fields.path')}
                      style={{ width: 360 }}
                      data-testid={`source-path-${i}`}
                    />
                  </Form.Item>
                )}
              />
              <Typography.Text strong>{t('tdePolicy:fields.signatures')}</Typography.Text>
              <EntryList
                name="signatures"
                disabled={disabled}
                addLabel={t('tdePolicy:actions.addSignature')}
                empty={{ file_name: '', hash_value: '' }}
                fields={(i) => (
                  <>
                    <Form.Item name={[i, 'file_name']} noStyle>
                      <Input
                        placeholder={t('tdePolicy:fields.fileName')}
                        style={{ width: 240 }}
                        data-testid={`signature-file-${i}`}
                      />
                    </Form.Item>
                    <Form.Item name={[i, 'hash_value']} noStyle>
                      <Input
                        placeholder={t('tdePolicy:fields.hash')}
                        style={{ width: 420, maxWidth: '100%' }}
                        data-testid={`signature-hash-${i}`}
                      />
                    </Form.Item>
                  </>
                )}
              />
            </Flex>
          )}
        </Card>
        {canWrite && (
          <Flex justify="end" style={{ marginTop: 16 }}>
            <Button type="primary" htmlType="submit" data-testid="element-save" {...submit.buttonProps}>
              {t('tdePolicy:actions.save')}
            </Button>
          </Flex>
        )}
      </Form>
    </Flex>
  );
}
