extension FrontendConfig {
    func validate() throws {}
}
