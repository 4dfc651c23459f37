import { CopyOutlined } from '@ant-design/icons';
import { App, Button } from 'antd';
import { useT } from '../i18n/i18n';

/** Copies `text` to the clipboard and says so. */
export function CopyButton({ text, testId }: { text: string; testId?: string }) {
  const t = useT();
  const { message } = App.useApp();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      void message.success(t('common:actions.copied'));
    } catch {
      void message.error(t('common:feedback.copyFailed'));
    }
  };
  return (
    <Button icon={<CopyOutlined />} onClick={() => void copy()} data-testid={testId}>
      {t('common:actions.copy')}
    </Button>
  );
}
