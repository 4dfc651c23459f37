import type { ReactNode } from 'react';
import { App } from 'antd';
import { useT } from '../i18n/i18n';

export interface ConfirmOptions {
  title: string;
  content?: ReactNode;
  /** Default "Confirm"-like text of the caller's area; the kit falls back to "Save". */
  okText?: string;
  danger?: boolean;
  /** data-testid of the OK button (default `confirm-ok`). */
  testId?: string;
  /** The work; the dialog shows its OK busy until it settles, then closes. */
  onOk: () => Promise<unknown>;
}

/**
 * The one confirmation dialog of the console. Its OK button submits once: handing antd
 * the work's promise keeps OK busy (deaf to clicks) until the work settles, then the
 * dialog closes — the re-click lock of every submitting button.
 */
export function useConfirm(): (options: ConfirmOptions) => void {
  const { modal } = App.useApp();
  const t = useT();
  return (options) => {
    modal.confirm({
      title: options.title,
      content: options.content,
      okText: options.okText ?? t('common:actions.save'),
      cancelText: t('common:actions.cancel'),
      okButtonProps: { danger: options.danger ?? false, 'data-testid': options.testId ?? 'confirm-ok' },
      onOk: () => options.onOk(),
    });
  };
}

export interface ConfirmDelete {
  /** The dialog's question, naming what goes ("Delete role 'auditors'?"). */
  title: string;
  /** Defaults to the common "cannot be undone" sentence. */
  content?: string;
  /** The call that deletes; a refusal was already shown by the API client. */
  remove: () => Promise<unknown>;
  /** Runs after a successful delete (clear a selection, say). */
  onDeleted?: () => void;
  /** Reloads what the page shows, whether the delete succeeded or not. */
  refresh: () => Promise<unknown>;
  /** data-testid of the danger button. */
  testId?: string;
}

/**
 * The one delete confirmation of the console: a danger "Delete" button, "cannot be undone",
 * a success message, and a refresh either way (the server may have refused some of it).
 */
export function useConfirmDelete(): (options: ConfirmDelete) => void {
  const { message } = App.useApp();
  const confirm = useConfirm();
  const t = useT();
  return (options) =>
    confirm({
      title: options.title,
      content: options.content ?? t('common:confirm.deleteContent'),
      okText: t('common:actions.delete'),
      danger: true,
      testId: options.testId,
      onOk: async () => {
        try {
          await options.remove();
          void message.success(t('common:feedback.deleted'));
          options.onDeleted?.();
        } catch {
          // The API client showed the server's reason.
        }
        await options.refresh();
      },
    });
}
