import { useState, type ReactNode } from 'react';
import {
  ClearOutlined,
  CopyOutlined,
  DeleteOutlined,
  DownOutlined,
  ExportOutlined,
  PlayCircleOutlined,
  PlusCircleOutlined,
  StopOutlined,
  UndoOutlined,
} from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Dropdown, Flex, Select } from 'antd';
import { api, revocationReasons } from '@ksp/contracts';
import {
  activateKey,
  addKeyVersion,
  cloneKey,
  deleteKeys,
  destroyKey,
  disableKey,
  keyKeys,
  recoverKey,
  type KeyRow,
} from '../../api/key';
import { useConfirm } from '../../components/confirm-delete';
import { FormModal } from '../../components/form-modal';
import { usePermissions } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { ExportDialog } from './export-dialog';
import { availableActions, isCompromiseReason, type KeyAction } from './key-model';

type Reason = (typeof revocationReasons)[number];

interface DisableValues {
  reason: Reason;
  message: string;
}

interface CloneValues {
  new_name: string;
}

type DialogAction = 'disable' | 'clone' | 'export';
type ConfirmedAction = Exclude<KeyAction, DialogAction>;
type Dialog = { kind: DialogAction; row: KeyRow } | null;

export const actionIcons: Record<KeyAction, ReactNode> = {
  addVersion: <PlusCircleOutlined />,
  activate: <PlayCircleOutlined />,
  disable: <StopOutlined />,
  recover: <UndoOutlined />,
  clone: <CopyOutlined />,
  export: <ExportOutlined />,
  destroy: <ClearOutlined />,
  delete: <DeleteOutlined />,
};

const dangerous: ReadonlySet<KeyAction> = new Set(['destroy', 'delete']);

/** The revocation reason; a compromise reason says that it is final. */
function ReasonSelect({ value, onChange }: { value?: Reason; onChange?: (value: Reason) => void }) {
  const t = useT();
  return (
    <Flex vertical gap={8}>
      <Select<Reason>
        value={value}
        onChange={onChange}
        options={revocationReasons.map((reason) => ({ value: reason, label: t(`keys:reasons.${reason}`) }))}
        data-testid="disable-reason"
        aria-label={t('keys:disable.reason')}
      />
      {isCompromiseReason(value) && (
        <Alert
          type="warning"
          showIcon
          title={t('keys:disable.compromiseWarning')}
          data-testid="disable-compromise-warning"
        />
      )}
    </Flex>
  );
}

/**
 * The lifecycle actions of a key, shared by the list and the detail page: confirmations
 * where an action cannot be taken back, the disable / clone / export dialogs, and a
 * refresh of every key query afterwards.
 */
export function useKeyActions(options: { onDeleted?: (row: KeyRow) => void } = {}) {
  const t = useT();
  const { message } = App.useApp();
  const confirmDialog = useConfirm();
  const queryClient = useQueryClient();
  const permissions = usePermissions();
  const [dialog, setDialog] = useState<Dialog>(null);

  /** Refreshes every key query, except those of deleted keys (their page is being left: no "not found"). */
  const refresh = (deleted: readonly string[] = []) =>
    queryClient.invalidateQueries({
      queryKey: keyKeys.all,
      predicate: (query) => !query.queryKey.some((part) => deleted.includes(part as string)),
    });

  /** The actions that ask first: what the confirmation says beyond title and button, and the call. */
  const confirmed: Record<
    ConfirmedAction,
    (row: KeyRow) => { content: string; perform: () => Promise<string>; deleted?: readonly string[] }
  > = {
    addVersion: (row) => ({
      content: t('keys:confirm.addVersionContent'),
      perform: async () => {
        const updated = await addKeyVersion(row.id);
        return t('keys:feedback.rotated', { name: row.name, version: updated.version });
      },
    }),
    activate: (row) => ({
      content: t('keys:confirm.activateContent'),
      perform: async () => {
        await activateKey(row.id);
        return t('keys:feedback.activated', { name: row.name });
      },
    }),
    recover: (row) => ({
      content: t('keys:confirm.recoverContent'),
      perform: async () => {
        await recoverKey(row.id);
        return t('keys:feedback.recovered', { name: row.name });
      },
    }),
    destroy: (row) => ({
      content: t('keys:confirm.destroyContent'),
      perform: async () => {
        await destroyKey(row.id);
        return t('keys:feedback.destroyed', { name: row.name });
      },
    }),
    delete: (row) => ({
      content:
        row.object_type === 'private' && row.linked_key_id
          ? t('keys:confirm.deletePairContent', { name: row.name })
          : t('keys:confirm.deleteContent'),
      perform: async () => {
        await deleteKeys([row.id]);
        options.onDeleted?.(row);
        return t('keys:feedback.deleted');
      },
      deleted: [row.id, ...(row.linked_key_id ? [row.linked_key_id] : [])],
    }),
  };

  const run = (action: KeyAction, row: KeyRow) => {
    if (action === 'disable' || action === 'clone' || action === 'export') {
      setDialog({ kind: action, row });
      return;
    }
    const { content, perform, deleted = [] } = confirmed[action](row);
    confirmDialog({
      title: t(`keys:confirm.${action}Title`, { name: row.name }),
      content,
      okText: t(`keys:actions.${action}`),
      danger: dangerous.has(action),
      testId: 'key-confirm-ok',
      onOk: async () => {
        try {
          void message.success(await perform());
        } catch {
          // The client showed the server's message.
        }
        await refresh(deleted);
      },
    });
  };

  const close = () => setDialog(null);
  const disabling = dialog?.kind === 'disable' ? dialog.row : null;
  const cloning = dialog?.kind === 'clone' ? dialog.row : null;
  const exporting = dialog?.kind === 'export' ? dialog.row : null;

  const dialogs = (
    <>
      <FormModal<DisableValues>
        open={disabling !== null}
        title={t('keys:disable.title', { name: disabling?.name ?? '' })}
        okText={t('keys:disable.submit')}
        schema={api.key.disable.body}
        initialValues={{ reason: 'unspecified', message: '' }}
        fields={[
          { name: 'reason', label: t('keys:disable.reason'), kind: 'custom', render: () => <ReasonSelect /> },
          { name: 'message', label: t('keys:disable.message'), kind: 'textarea', testId: 'disable-message' },
        ]}
        onSubmit={async (values) => {
          if (!disabling) return;
          await disableKey({ id: disabling.id, reason: values.reason, message: values.message ?? '' });
          void message.success(t('keys:feedback.disabled', { name: disabling.name }));
          await refresh();
        }}
        onClose={close}
      />
      <FormModal<CloneValues>
        open={cloning !== null}
        title={t('keys:clone.title', { name: cloning?.name ?? '' })}
        okText={t('keys:clone.submit')}
        schema={api.key.clone.body}
        initialValues={{ new_name: '' }}
        fields={[
          {
            name: 'new_name',
            label: t('keys:clone.newName'),
            extra: t('keys:clone.hint'),
            testId: 'clone-name',
          },
        ]}
        onSubmit={async (values) => {
          if (!cloning) return;
          const created = await cloneKey(cloning.id, values.new_name.trim());
          void message.success(t('keys:feedback.cloned', { name: created.name }));
          await refresh();
        }}
        onClose={close}
      />
      {exporting && <ExportDialog row={exporting} onClose={close} />}
    </>
  );

  return {
    actionsOf: (row: KeyRow) => availableActions(row, permissions),
    run,
    dialogs,
  };
}

export function useActionLabel() {
  const t = useT();
  return (action: KeyAction) => t(`keys:actions.${action}`);
}

interface ActionsProps {
  row: KeyRow;
  actions: readonly KeyAction[];
  onRun: (action: KeyAction, row: KeyRow) => void;
}

/** The row's lifecycle actions in a "More" menu (compact on a phone). */
export function KeyActionMenu({ row, actions, onRun }: ActionsProps) {
  const t = useT();
  const label = useActionLabel();
  return (
    <Dropdown
      trigger={['click']}
      disabled={actions.length === 0}
      menu={{
        items: actions.map((action) => ({
          key: action,
          icon: actionIcons[action],
          danger: dangerous.has(action),
          label: <span data-testid={`key-action-${action}`}>{label(action)}</span>,
        })),
        onClick: ({ key }) => onRun(key as KeyAction, row),
      }}
    >
      <Button type="link" size="small" data-testid={`key-more-${row.name}`}>
        {t('keys:actions.more')} <DownOutlined />
      </Button>
    </Dropdown>
  );
}

/** The same actions as buttons (detail page). */
export function KeyActionButtons({ row, actions, onRun }: ActionsProps) {
  const label = useActionLabel();
  return (
    <>
      {actions.map((action) => (
        <Button
          key={action}
          icon={actionIcons[action]}
          danger={dangerous.has(action)}
          onClick={() => onRun(action, row)}
          data-testid={`key-action-${action}`}
        >
          {label(action)}
        </Button>
      ))}
    </>
  );
}
