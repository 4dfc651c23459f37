import { defineMessages } from './define.js';

/** Configuration entries. */
export const configMessages = defineMessages({
  en: {
    'config.keyTaken': "Configuration key '{key}' already exists",
    'config.notFound': 'Configuration entry {id} not found',
    'config.builtIn': "Built-in configuration entry '{key}' cannot be deleted",
    'config.readOnly': "Configuration entry '{key}' is read-only",
    'config.badMfa': "value: MFA must be '0' (off) or '1' (UKEY required)",
    'config.badTitle': 'value: the title must be 1 to {max} characters',
    'config.badBridge': 'value: the UKEY bridge address must be an http:// or https:// URL',
    'config.badLogo': 'value: the logo must be empty or an image data URL (upload the image instead)',
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
    'config.badMfa': "value：MFA 只能为 '0'（关闭）或 '1'（要求 UKEY）",
    'config.badTitle': 'value：标题长度须为 1 到 {max} 个字符',
    'config.badBridge': 'value：UKEY 桥接地址必须是 http:// 或 https:// 开头的 URL',
    'config.badLogo': 'value：标志只能为空或图片 data URL（请改为上传图片）',
    'config.uploadMissing': 'file：未上传文件',
    'config.uploadType': 'file：标志图片必须是 PNG、JPEG、WebP 或 SVG 格式',
    'config.uploadSize': 'file：文件大小超过 {max} KB',
    'config.uploadKey': '只有“{key}”可以上传文件',
  },
});
