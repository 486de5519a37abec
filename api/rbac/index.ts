export * from './permissions.js'
