<?php

declare(strict_types=1);

namespace App\Infrastructure\Api\Front\Exposed\Misc;

use App\Domain\Entity\AppToken;
use App\Domain\Enum\AppTokenType;
use App\Domain\Repository\AppTokenRepositoryInterface;
use App\Domain\Repository\UserRepositoryInterface;
use Doctrine\ORM\EntityManagerInterface;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\Routing\Attribute\Route;

final class RegisterNotificationDeviceApi
{
    public const ANDROID_ROUTE_NAME = 'api_android_register';
    public const IOS_ROUTE_NAME = 'api_ios_register';

    public function __construct(
        private readonly EntityManagerInterface $em,
        private readonly UserRepositoryInterface $userRepository,
        private readonly AppTokenRepositoryInterface $appTokenRepository,
    ) {
    }

    #[Route(path: '/api/android-register', name: self::ANDROID_ROUTE_NAME, methods: ['POST'])]
    #[Route(path: '/api/ios-register', name: self::IOS_ROUTE_NAME, methods: ['POST'])]
    public function __invoke(Request $request): Response
    {
        $paramUserId = $request->request->get('userId');
        $paramUserSalt = $request->request->get('userToken');
        $paramAppToken = $request->request->get('appToken');
        $routeName = $request->attributes->get('_route');

        $tokenType = match ($routeName) {
            self::ANDROID_ROUTE_NAME => AppTokenType::ANDROID,
            self::IOS_ROUTE_NAME => AppTokenType::IOS,
            default => null,
        };

        if (!$tokenType || empty($paramAppToken) || empty($paramUserId)) {
            return new Response('Invalid request parameters', Response::HTTP_BAD_REQUEST);
        }

        $user = $this->userRepository->find($paramUserId);
        if (!$user || $user->getSalt() !== $paramUserSalt) {
            return new Response('User authentication failed', Response::HTTP_UNAUTHORIZED);
        }

        $existingToken = $this->appTokenRepository->findOneByToken($paramAppToken);
        if ($existingToken) {
            if ($existingToken->getUser() === $user) {
                return new Response('Token already registered for this user');
            }
            $this->em->remove($existingToken);
        }

        $appToken = new AppToken();
        $appToken->setType($tokenType);
        $appToken->setUser($user);
        $appToken->setValue($paramAppToken);
        $appToken->setSessionId($request->getSession()->getId());

        $this->em->persist($appToken);
        $this->em->flush();

        return new Response('Token successfully registered');
    }
}
