import { defineMessages } from './define.js';

/** The quantum entropy source (settings › quantum). */
export const quantumMessages = defineMessages({
  en: {
    'quantum.endpointRequired': 'endpoint: give the device, file or URL of the source to enable it',
    'quantum.endpointAbsolute': 'endpoint: a device or file path must be absolute',
    'quantum.endpointMissing': 'endpoint: {path} does not exist or cannot be read',
    'quantum.endpointNotDevice': 'endpoint: {path} is not a character device',
    'quantum.endpointNotFile': 'endpoint: {path} is not a regular file',
    'quantum.endpointUrl': 'endpoint: a network source is an http:// or https:// URL',
    'quantum.startupFailed': 'The source failed its start-up tests ({failure}): {detail}',
    'quantum.notConfigured': 'No entropy source is configured',
  },
  zh: {
    'quantum.endpointRequired': 'endpoint：启用前请填写熵源的设备、文件或 URL',
    'quantum.endpointAbsolute': 'endpoint：设备或文件路径必须是绝对路径',
    'quantum.endpointMissing': 'endpoint：{path} 不存在或无法读取',
    'quantum.endpointNotDevice': 'endpoint：{path} 不是字符设备',
    'quantum.endpointNotFile': 'endpoint：{path} 不是普通文件',
    'quantum.endpointUrl': 'endpoint：网络熵源须为 http:// 或 https:// URL',
    'quantum.startupFailed': '熵源启动自检失败（{failure}）：{detail}',
    'quantum.notConfigured': '尚未配置熵源',
  },
});
