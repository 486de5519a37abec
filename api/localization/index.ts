export { localizationRoutes } from './routes.js'
