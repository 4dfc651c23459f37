import { defineMessages } from './define.js';

/** Configuration entries. */
export const configMessages = defineMessages({
  en: {
    'config.keyTaken': "Configuration key '{key}' already exists",
    'config.notFound': 'Configuration entry {id} not found',
    'config.builtIn': "Built-in configuration entry '{key}' cannot be deleted",
    'config.readOnly': "Configuration entry '{key}' is read-only",
    'config.badValue': "Configuration entry '{key}': {rule}",
    'config.mfaValues': "must be '0' or '1'",
    'config.uploadMissing': 'file: no file was uploaded',
    'config.uploadType': 'file: the logo must be a PNG, JPEG, WebP or SVG image',
    'config.uploadSize': 'file: the file is larger than {max} KB',
    'config.uploadKey': "Only '{key}' accepts an uploaded file",
  },
  zh: {
    'config.keyTaken': '配置项“{key}”已存在',
    'config.notFound': '配置项 {id} 不存在',
    'config.builtIn': '内置配置项“{key}”不能删除',
    'config.readOnly': '配置项“{key}”为只读',
    'config.badValue': '配置项“{key}”：{rule}',
    'config.mfaValues': "只能为 '0' 或 '1'",
    'config.uploadMissing': 'file：未上传文件',
    'config.uploadType': 'file：标志图片必须是 PNG、JPEG、WebP 或 SVG 格式',
    'config.uploadSize': 'file：文件大小超过 {max} KB',
    'config.uploadKey': '只有“{key}”可以上传文件',
  },
});
