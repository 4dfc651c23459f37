import { useState, type ReactNode } from 'react';
import { App, Button, Flex, Modal, Popconfirm, Typography } from 'antd';
import { useT } from '../i18n/i18n';
import { useSubmit } from './use-submit';
import { NameList, type NamedItem } from './name-list';

/** What the picker of a members modal receives: the chosen ids and the ids already members. */
export interface MemberPickerProps {
  value: string[];
  onChange: (value: string[]) => void;
  exclude: string[];
  /** The picker's data-testid. */
  testId: string;
}

export interface MembersModalProps<M extends NamedItem> {
  open: boolean;
  title: string;
  help?: string;
  members: readonly M[];
  loading?: boolean;
  emptyText?: string;
  /** Members can be removed. */
  canRemove: boolean;
  /** Members can be added (the picker and its button are shown). */
  canAdd: boolean;
  picker: (props: MemberPickerProps) => ReactNode;
  addText: string;
  removeConfirm: (member: M) => string;
  onAdd: (ids: string[]) => Promise<unknown>;
  onRemove: (member: M) => Promise<unknown>;
  /** Runs after every add or remove, refused or not (the server may have done part of it). */
  onChanged: () => Promise<unknown>;
  onClose: () => void;
  /**
   * Prefix of the test ids: `<testId>-list`, `<testId>-remove-<name>` and its confirmation
   * `<testId>-remove-ok`, the picker `<testId>-select` and `<testId>-add`.
   */
  testId: string;
}

/**
 * The members of something (the holders of a role, the users of a domain, the domains
 * of a user): a list with "Remove" behind a confirmation, and a picker to add more.
 */
export function MembersModal<M extends NamedItem>({
  open,
  title,
  help,
  members,
  loading,
  emptyText,
  canRemove,
  canAdd,
  picker,
  addText,
  removeConfirm,
  onAdd,
  onRemove,
  onChanged,
  onClose,
  testId,
}: MembersModalProps<M>) {
  const t = useT();
  const { message } = App.useApp();
  const [picked, setPicked] = useState<string[]>([]);
  const { run, buttonProps } = useSubmit();

  /** Success says "Saved"; a refusal was shown by the API client. Either way the lists refresh. */
  const saved = async (ok: boolean) => {
    if (ok) void message.success(t('common:feedback.saved'));
    await onChanged();
  };

  // Adding submits the picker: busy, then re-click locked, like every submitting button.
  const add = async () => {
    if (picked.length === 0) return;
    const ok = await run(async () => {
      await onAdd(picked);
      setPicked([]);
    });
    await saved(ok);
  };

  // Removing is confirmed first; the confirmation's button shows the wait.
  const remove = async (member: M) => {
    const ok = await onRemove(member).then(
      () => true,
      () => false,
    );
    await saved(ok);
  };

  const close = () => {
    setPicked([]);
    onClose();
  };

  return (
    <Modal
      open={open}
      title={title}
      onCancel={close}
      footer={<Button onClick={close}>{t('access:common.close')}</Button>}
      destroyOnHidden
      width={560}
    >
      {help && <Typography.Paragraph type="secondary">{help}</Typography.Paragraph>}
      <NameList
        items={members}
        loading={loading}
        testId={`${testId}-list`}
        emptyText={emptyText}
        action={
          canRemove
            ? (member) => (
                <Popconfirm
                  title={removeConfirm(member)}
                  okText={t('access:common.remove')}
                  cancelText={t('common:actions.cancel')}
                  okButtonProps={{ danger: true, 'data-testid': `${testId}-remove-ok` }}
                  onConfirm={() => remove(member)}
                >
                  <Button type="link" size="small" danger data-testid={`${testId}-remove-${member.name}`}>
                    {t('access:common.remove')}
                  </Button>
                </Popconfirm>
              )
            : undefined
        }
      />
      {canAdd && (
        <Flex gap={8} wrap style={{ marginTop: 16 }}>
          <div style={{ flex: '1 1 240px', minWidth: 0 }}>
            {picker({
              value: picked,
              onChange: setPicked,
              exclude: members.map((member) => member.id),
              testId: `${testId}-select`,
            })}
          </div>
          <Button type="primary" {...buttonProps} onClick={() => void add()} data-testid={`${testId}-add`}>
            {addText}
          </Button>
        </Flex>
      )}
    </Modal>
  );
}
