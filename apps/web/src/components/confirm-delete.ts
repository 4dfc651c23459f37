import { App } from 'antd';
import { useT } from '../i18n/i18n';

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
  const { message, modal } = App.useApp();
  const t = useT();
  return (options) => {
    modal.confirm({
      title: options.title,
      content: options.content ?? t('common:confirm.deleteContent'),
      okText: t('common:actions.delete'),
      cancelText: t('common:actions.cancel'),
      okButtonProps: { danger: true, 'data-testid': options.testId ?? 'confirm-ok' },
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
  };
}
