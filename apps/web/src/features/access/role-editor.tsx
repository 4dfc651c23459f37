import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Flex, Form, Input, Spin, Tree, Typography } from 'antd';
import type { Rule } from 'antd/es/form';
import { api, type DataOf } from '@ksp/contracts';
import { accessKeys, createRole, fetchPermissionTree, updateRole } from '../../api/access';
import { ModalForm } from '../../components/form-modal';
import { fieldSchema, rulesFromSchema } from '../../components/schema-rules';
import { useT } from '../../i18n/i18n';
import { roleName } from '../../i18n/server-labels';
import {
  checkedPermissions,
  keepUnoffered,
  offeredCount,
  permissionLeaves,
  toPermissionTree,
  type PermissionTreeNode,
} from './permission-tree';

export type RoleRow = DataOf<typeof api.role.list>['data'][number];

/** Which role the editor shows: a new one, a custom one to change, or a built-in one to look at. */
export type RoleEditorTarget =
  { mode: 'create' } | { mode: 'edit'; role: RoleRow } | { mode: 'view'; role: RoleRow };

interface RoleValues {
  name: string;
  description: string;
  permissions: string[];
}

/**
 * The permission tree as a form control: value = the role's permissions. The tree offers the
 * areas served today; permissions of other areas a role already holds are kept untouched.
 */
function PermissionTreeField({
  value = [],
  onChange,
  disabled,
}: {
  value?: string[];
  onChange?: (value: string[]) => void;
  disabled?: boolean;
}) {
  const t = useT();
  const tree = useQuery({
    queryKey: accessKeys.permissionTree,
    queryFn: fetchPermissionTree,
    staleTime: Infinity,
  });
  const leaves = useMemo(() => permissionLeaves(tree.data ?? []), [tree.data]);
  const data = useMemo(() => toPermissionTree(tree.data ?? []), [tree.data]);
  const change = (chosen: readonly string[]) => onChange?.(keepUnoffered(chosen, value, leaves));
  if (!tree.data) return <Spin />;
  return (
    <div data-testid="permission-tree">
      <Flex justify="space-between" align="center" wrap gap={8} style={{ marginBottom: 8 }}>
        <Typography.Text type="secondary" data-testid="permission-count">
          {t('access:role.selectedCount', { count: offeredCount(value, leaves), total: leaves.length })}
        </Typography.Text>
        {!disabled && (
          <Flex gap={4}>
            <Button size="small" onClick={() => change(leaves)}>
              {t('access:role.selectAll')}
            </Button>
            <Button size="small" onClick={() => change([])}>
              {t('access:role.clearAll')}
            </Button>
          </Flex>
        )}
      </Flex>
      <div
        style={{
          maxHeight: 380,
          overflow: 'auto',
          border: '1px solid rgba(128,128,128,0.25)',
          borderRadius: 6,
          padding: 8,
        }}
      >
        <Tree<PermissionTreeNode>
          checkable
          selectable={false}
          disabled={disabled}
          defaultExpandAll
          treeData={data}
          checkedKeys={value.filter((permission) => leaves.includes(permission))}
          onCheck={(checked) => {
            const keys = Array.isArray(checked) ? checked : checked.checked;
            change(checkedPermissions(keys, leaves));
          }}
          titleRender={(node) =>
            node.code ? (
              <span data-permission={node.code}>
                {node.title}{' '}
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {node.code}
                </Typography.Text>
              </span>
            ) : (
              <span data-permission-node={node.key}>{node.title}</span>
            )
          }
        />
      </div>
    </div>
  );
}

/** Create or change a custom role, or look at a built-in one (read-only). */
export function RoleEditor({
  target,
  onClose,
  onSaved,
}: {
  target: RoleEditorTarget | null;
  onClose: () => void;
  onSaved: (role: RoleRow) => void | Promise<void>;
}) {
  const t = useT();
  const readOnly = target?.mode === 'view';
  /** A field's rules while editing; none while viewing. */
  const editRules = (rules: Rule[]) => (readOnly ? [] : rules);
  const role = target && target.mode !== 'create' ? target.role : null;
  const schema = target?.mode === 'create' ? api.role.create.body : api.role.update.body;

  const submit = async (values: RoleValues) => {
    const fields = {
      name: values.name.trim(),
      description: values.description?.trim() ?? '',
      permissions: values.permissions,
    };
    const saved = role ? await updateRole({ id: role.id, ...fields }) : await createRole(fields);
    await onSaved(saved);
  };

  const title =
    target?.mode === 'create'
      ? t('access:role.createTitle')
      : target?.mode === 'edit'
        ? t('access:role.editTitle', { name: role?.name ?? '' })
        : t('access:role.viewTitle', { name: roleName(role?.name ?? '') });

  return (
    <ModalForm<RoleValues>
      open={target !== null}
      title={title}
      onSubmit={submit}
      onClose={onClose}
      width={680}
      readOnly={readOnly}
      cancelText={readOnly ? t('access:common.close') : undefined}
      okTestId="role-save"
      initialValues={{
        name: role?.name ?? '',
        description: role?.description ?? '',
        permissions: role?.permissions ?? [],
      }}
    >
      {readOnly && (
        <Typography.Paragraph type="secondary" data-testid="role-read-only">
          {t('access:role.builtInReadOnly')}
        </Typography.Paragraph>
      )}
      <Form.Item
        name="name"
        label={t('access:role.fields.name')}
        extra={readOnly ? undefined : t('access:common.nameHint')}
        rules={editRules(
          rulesFromSchema(fieldSchema(api.role.create.body, 'name'), t('access:role.fields.name')),
        )}
      >
        <Input data-testid="role-name" />
      </Form.Item>
      <Form.Item
        name="description"
        label={t('access:role.fields.description')}
        rules={editRules(
          rulesFromSchema(fieldSchema(schema, 'description'), t('access:role.fields.description')),
        )}
      >
        <Input.TextArea autoSize={{ minRows: 1, maxRows: 4 }} data-testid="role-description" />
      </Form.Item>
      <Form.Item
        name="permissions"
        label={t('access:role.fields.permissions')}
        rules={editRules([
          { required: true, type: 'array', min: 1, message: t('access:role.permissionsRequired') },
        ])}
      >
        <PermissionTreeField disabled={readOnly} />
      </Form.Item>
    </ModalForm>
  );
}
