import { UploadOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Typography, Upload } from 'antd';
import { LOGO_MAX_BYTES } from '@ksp/contracts';
import { configKeys, uploadLogo } from '../../api/config';
import { useT } from '../../i18n/i18n';

export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'] as const;
const LOGO_MAX_KB = LOGO_MAX_BYTES / 1024;

/** What is wrong with a logo file before it is sent: its type, its size, or nothing. */
export function logoFileProblem(file: { type: string; size: number }): 'badType' | 'tooLarge' | null {
  if (!(LOGO_TYPES as readonly string[]).includes(file.type)) return 'badType';
  if (file.size > LOGO_MAX_BYTES) return 'tooLarge';
  return null;
}

/** The logo entry's value: a preview and an upload (checked here, stored by the server). */
export function LogoField({ value, onChange }: { value?: string; onChange?: (value: string) => void }) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();

  const send = async (file: File) => {
    try {
      const entry = await uploadLogo(file);
      onChange?.(entry.value);
      void message.success(t('config:logo.uploaded'));
      await queryClient.invalidateQueries({ queryKey: configKeys.all });
    } catch {
      // The client showed the server's message.
    }
  };

  return (
    <Flex align="center" gap={16} wrap>
      {value?.startsWith('data:image/') ? (
        <img
          src={value}
          alt="logo"
          data-testid="logo-preview"
          style={{ width: 64, height: 64, objectFit: 'contain' }}
        />
      ) : (
        <Typography.Text type="secondary">{t('config:logo.none')}</Typography.Text>
      )}
      <Flex vertical gap={4}>
        <Upload
          accept={LOGO_TYPES.join(',')}
          showUploadList={false}
          beforeUpload={(file) => {
            const problem = logoFileProblem(file);
            if (problem === 'badType') void message.error(t('config:logo.badType'));
            else if (problem === 'tooLarge')
              void message.error(t('config:logo.tooLarge', { max: LOGO_MAX_KB }));
            else void send(file);
            return false;
          }}
        >
          <Button icon={<UploadOutlined />} data-testid="logo-upload">
            {t('config:logo.upload')}
          </Button>
        </Upload>
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {t('config:logo.hint', { max: LOGO_MAX_KB })}
        </Typography.Text>
      </Flex>
    </Flex>
  );
}
