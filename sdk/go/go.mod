module ozan.dev/sdk/go

go 1.18
